/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The services an operator switches off on a headless device: their state
 * from systemd's D-Bus API, both questions asked at once (one round trip). */
#include "jmem-collect-private.h"

#include "jmem-names.h"
#include "jmem-system-bus.h"
#include "jmem-text.h"

#include <gio/gio.h>

const char * const jmem_collect_service_names[] = {
  "gdm3", "gdm", "lightdm", "sddm", "display-manager", "pulseaudio", "bluetooth",
  "ModemManager", "cups", "cups-browsed", "snapd", "whoopsie", "kerneloops",
  "avahi-daemon", "unattended-upgrades", "packagekit", "nvargus-daemon",
  "containerd", "docker", NULL,
};

typedef struct {
  GVariant *units;
  GVariant *files;
  GError   *units_error;
  gboolean  bus_silent;   /* the bus itself did not answer: frozen, not systemd */
  guint     pending;
} Replies;

static void
on_bus_id (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Replies *r = user_data;
  g_autoptr(GError) error = NULL;
  GVariant *id = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &error);

  r->bus_silent = g_error_matches (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT);
  g_clear_pointer (&id, g_variant_unref);
  r->pending--;
}

static void
on_units (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Replies *r = user_data;

  r->units = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, &r->units_error);
  r->pending--;
}

static void
on_files (GObject *source, GAsyncResult *res, gpointer user_data)
{
  Replies *r = user_data;

  r->files = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), res, NULL);
  r->pending--;
}

static GVariant *
unit_names_variant (void)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("as"));
  for (guint i = 0; jmem_collect_service_names[i] != NULL; i++)
    {
      g_autofree char *unit = g_strconcat (jmem_collect_service_names[i], ".service", NULL);
      g_variant_builder_add (&b, "s", unit);
    }
  return g_variant_builder_end (&b);
}

static void
collect_live (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autoptr(GError) error = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GMainContext) main_ctx = g_main_context_new ();
  g_autoptr(GHashTable) file_states = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  Replies r = { 0 };
  GVariantIter iter;
  const char *name, *load, *active, *path, *state;

  g_main_context_push_thread_default (main_ctx);
  bus = jmem_system_bus_get (JMEM_SYSTEM_BUS_TIMEOUT_MS, &error);
  if (bus != NULL)
    {
      GVariant *names = g_variant_ref_sink (unit_names_variant ());

      r.pending = 3;
      g_dbus_connection_call (bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                              "org.freedesktop.systemd1.Manager", "ListUnitsByNames",
                              g_variant_new ("(@as)", names), G_VARIANT_TYPE ("(a(ssssssouso))"),
                              G_DBUS_CALL_FLAGS_NONE, (int) ctx->timeout_ms, NULL, on_units, &r);
      g_dbus_connection_call (bus, "org.freedesktop.systemd1", "/org/freedesktop/systemd1",
                              "org.freedesktop.systemd1.Manager", "ListUnitFilesByPatterns",
                              g_variant_new ("(^as@as)", (const char * const[]) { NULL }, names),
                              G_VARIANT_TYPE ("(a(ss))"), G_DBUS_CALL_FLAGS_NONE,
                              (int) ctx->timeout_ms, NULL, on_files, &r);
      /* answered by the bus daemon itself: tells a frozen bus, which the
       * next samples then do not wait for, from a slow systemd */
      g_dbus_connection_call (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus", "GetId", NULL, G_VARIANT_TYPE ("(s)"),
                              G_DBUS_CALL_FLAGS_NONE, (int) ctx->timeout_ms, NULL, on_bus_id, &r);
      g_variant_unref (names);
      while (r.pending > 0)
        g_main_context_iteration (main_ctx, TRUE);
      if (r.bus_silent)
        {
          jmem_system_bus_mark_frozen (ctx->timeout_ms);
          g_clear_error (&r.units_error);
          g_clear_pointer (&r.units, g_variant_unref);
          g_set_error (&error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       "the system bus did not answer within %u s", (ctx->timeout_ms + 999) / 1000);
        }
    }
  g_main_context_pop_thread_default (main_ctx);

  if (bus == NULL || r.units == NULL)
    {
      const char *why = error != NULL ? error->message : r.units_error->message;

      jmem_snapshot_add_warning (s, "services", NULL,
                                 "service states unknown: systemd is not reachable on the "
                                 "system bus (%s)", why);
      g_clear_error (&r.units_error);
      g_clear_pointer (&r.files, g_variant_unref);
      return;
    }

  if (r.files != NULL)
    {
      g_autoptr(GVariant) list = g_variant_get_child_value (r.files, 0);

      g_variant_iter_init (&iter, list);
      while (g_variant_iter_next (&iter, "(&s&s)", &path, &state))
        g_hash_table_insert (file_states, g_path_get_basename (path), g_strdup (state));
    }
  else
    jmem_snapshot_add_warning (s, "services", NULL,
                               "systemd did not list unit files: enabled states unknown");

  s->services = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_service_free);
  {
    g_autoptr(GVariant) list = g_variant_get_child_value (r.units, 0);

    g_variant_iter_init (&iter, list);
    while (g_variant_iter_next (&iter, "(&s&s&s&s&s&s&ou&s&o)", &name, NULL, &load, &active,
                                NULL, NULL, NULL, NULL, NULL, NULL))
      {
        JmemService *svc = g_new0 (JmemService, 1);
        const char *file_state = g_hash_table_lookup (file_states, name);

        svc->name = jmem_text_make_valid (name, -1);
        svc->load_state = jmem_text_make_valid (load, -1);
        svc->active_state = jmem_text_make_valid (active, -1);
        svc->unit_file_state = file_state ? jmem_text_make_valid (file_state, -1) : NULL;
        g_ptr_array_add (s->services, svc);
      }
  }
  g_variant_unref (r.units);
  g_clear_pointer (&r.files, g_variant_unref);
}

/* DIR/systemd/units.tsv: name, load state, active state, unit file state ("-": none). */
static void
collect_sysroot (JmemCollectContext *ctx)
{
  JmemSnapshot *s = ctx->snapshot;
  g_autofree char *data = NULL;
  g_auto(GStrv) lines = NULL;
  gsize len = 0;

  if (!jmem_root_read (ctx->files, "/systemd/units.tsv", JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
    {
      jmem_snapshot_add_warning (s, "services", NULL,
                                 "service states unknown: the capture holds no systemd/units.tsv");
      return;
    }
  s->services = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_service_free);
  lines = g_strsplit (data, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      JmemService *svc;

      if (g_strv_length (f) != 4)
        continue;
      svc = g_new0 (JmemService, 1);
      svc->name = jmem_text_make_valid (f[0], -1);
      svc->load_state = jmem_text_make_valid (f[1], -1);
      svc->active_state = jmem_text_make_valid (f[2], -1);
      svc->unit_file_state = g_str_equal (f[3], "-") ? NULL : jmem_text_make_valid (f[3], -1);
      g_ptr_array_add (s->services, svc);
    }
}

void
jmem_collect_services (JmemCollectContext *ctx)
{
  if (ctx->root == NULL)
    collect_live (ctx);
  else
    collect_sysroot (ctx);
}
