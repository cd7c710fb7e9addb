/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-helper-client.h"
#include "jmem-helper-client-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jmem-client-error.h"
#include "jmem-config.h"
#include "jmem-error.h"
#include "jmem-helper-wire.h"
#include "jmem-helper1-generated.h"
#include "jmem-names.h"
#include "jmem-system-bus.h"

#define DEFAULT_TIMEOUT_MS      (25 * 1000)
/* A person may be typing a password for polkit: the helper waits 120 s for
 * it, and this must outlast that to hear the helper's answer. */
#define INTERACTIVE_TIMEOUT_MS  (150 * 1000)
/* A helper takes its name within a fraction of a second; one that has not
 * in this time never will (the bus itself would wait 25 s). */
#define JMEM_HELPER_START_TIMEOUT_MS (10 * 1000)

#define INTERACTIVE_AUTH_REQUIRED "org.freedesktop.DBus.Error.InteractiveAuthorizationRequired"

static int
effective_timeout (const JmemHelperCallOptions *options)
{
  if (options != NULL && options->timeout_ms > 0)
    return options->timeout_ms;
  if (options != NULL && options->allow_interactive)
    return INTERACTIVE_TIMEOUT_MS;
  return DEFAULT_TIMEOUT_MS;
}

GError *
jmem_helper_error_translate (GError     *error,
                             const char *action,
                             int         timeout_ms)
{
  g_autoptr(GError) in = error;
  g_autofree char *remote = g_dbus_error_get_remote_error (in);
  const char *msg;

  g_dbus_error_strip_remote_error (in);
  msg = in->message;

  if (g_strcmp0 (remote, INTERACTIVE_AUTH_REQUIRED) == 0)
    return g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_AUTH_FAILED,
                        "%s needs authentication, and this call may not ask for a password",
                        action);

  if (in->domain == G_DBUS_ERROR)
    switch (in->code)
      {
      case G_DBUS_ERROR_SERVICE_UNKNOWN:
      case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
        return g_error_new (G_DBUS_ERROR, in->code,
                            "jmem-helper is not installed: nothing provides %s on the system bus",
                            JMEM_DBUS_NAME);
      case G_DBUS_ERROR_ACCESS_DENIED:
        return g_error_new (G_DBUS_ERROR, in->code, "not authorized for %s", action);
      case G_DBUS_ERROR_NO_REPLY:
      case G_DBUS_ERROR_TIMEOUT:
      case G_DBUS_ERROR_TIMED_OUT:
        return g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY,
                            "jmem-helper did not answer (%s)", msg);
      case G_DBUS_ERROR_SPAWN_EXEC_FAILED:
      case G_DBUS_ERROR_SPAWN_FORK_FAILED:
      case G_DBUS_ERROR_SPAWN_CHILD_EXITED:
      case G_DBUS_ERROR_SPAWN_CHILD_SIGNALED:
      case G_DBUS_ERROR_SPAWN_FAILED:
      case G_DBUS_ERROR_SPAWN_SETUP_FAILED:
      case G_DBUS_ERROR_SPAWN_CONFIG_INVALID:
      case G_DBUS_ERROR_SPAWN_SERVICE_INVALID:
      case G_DBUS_ERROR_SPAWN_SERVICE_NOT_FOUND:
      case G_DBUS_ERROR_SPAWN_PERMISSIONS_INVALID:
      case G_DBUS_ERROR_SPAWN_FILE_INVALID:
      case G_DBUS_ERROR_SPAWN_NO_MEMORY:
        return g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED,
                            "jmem-helper could not be started: %s", msg);
      case G_DBUS_ERROR_UNKNOWN_METHOD:
      case G_DBUS_ERROR_UNKNOWN_INTERFACE:
      case G_DBUS_ERROR_UNKNOWN_OBJECT:
      case G_DBUS_ERROR_INVALID_ARGS:
        return g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD,
                            "jmem-helper does not understand this client: %s", msg);
      default:
        break;
      }

  if (g_error_matches (in, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    return g_error_new (G_DBUS_ERROR, G_DBUS_ERROR_NO_REPLY,
                        "jmem-helper did not answer within %d s", (timeout_ms + 999) / 1000);

  if (g_error_matches (in, G_IO_ERROR, G_IO_ERROR_CLOSED) ||
      g_error_matches (in, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED))
    return g_error_new (G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                        "the system bus connection closed: %s", msg);

  /* JMEM_ERROR codes arrive as themselves (the domain is registered) and
   * already say what happened; anything else is passed on as it is. */
  return g_steal_pointer (&in);
}

/* Whether the helper owns its name now (a helper started by other means
 * than activation too: the bus knows no .service file for it then). */
static gboolean
helper_running (GDBusConnection *bus,
                GError         **error)
{
  g_autoptr(GVariant) reply = NULL;
  gboolean owned = FALSE;

  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "NameHasOwner",
                                       g_variant_new ("(s)", JMEM_DBUS_NAME),
                                       G_VARIANT_TYPE ("(b)"), G_DBUS_CALL_FLAGS_NONE,
                                       JMEM_HELPER_START_TIMEOUT_MS, NULL, error);
  if (reply != NULL)
    g_variant_get (reply, "(b)", &owned);
  return owned;
}

/* The helper's start, apart from the call: a helper that cannot start
 * (a missing binary, a broken Exec= line, one that never takes its name)
 * is then told apart from one that is slow to answer, within a deadline of
 * its own. One round trip where it already runs. */
static gboolean
start_helper (GDBusConnection *bus,
              GError         **error)
{
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *remote = NULL;

  if (helper_running (bus, &local))
    return TRUE;
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    {
      /* the bus itself answers NameHasOwner: it froze after connecting */
      jmem_system_bus_mark_frozen (JMEM_HELPER_START_TIMEOUT_MS);
      g_set_error (error, JMEM_CLIENT_ERROR, JMEM_CLIENT_ERROR_BUS_TIMED_OUT,
                   "the system bus did not answer within %d s", JMEM_HELPER_START_TIMEOUT_MS / 1000);
      return FALSE;
    }
  if (local != NULL)
    {
      g_propagate_error (error, jmem_helper_error_translate (g_steal_pointer (&local), NULL,
                                                             JMEM_HELPER_START_TIMEOUT_MS));
      return FALSE;
    }
  reply = g_dbus_connection_call_sync (bus, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                       "org.freedesktop.DBus", "StartServiceByName",
                                       g_variant_new ("(su)", JMEM_DBUS_NAME, 0),
                                       G_VARIANT_TYPE ("(u)"), G_DBUS_CALL_FLAGS_NONE,
                                       JMEM_HELPER_START_TIMEOUT_MS, NULL, &local);
  if (reply != NULL)
    return TRUE;
  remote = g_dbus_error_get_remote_error (local);
  g_dbus_error_strip_remote_error (local);
  if (g_error_matches (local, G_DBUS_ERROR, G_DBUS_ERROR_SERVICE_UNKNOWN) ||
      g_error_matches (local, G_IO_ERROR, G_IO_ERROR_CLOSED))
    {
      g_propagate_error (error, jmem_helper_error_translate (g_steal_pointer (&local),
                                                             NULL, JMEM_HELPER_START_TIMEOUT_MS));
      return FALSE;
    }
  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_TIMED_OUT))
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED,
                 "jmem-helper could not be started: it did not take its name on the system bus "
                 "within %d s", JMEM_HELPER_START_TIMEOUT_MS / 1000);
  else
    g_set_error (error, G_DBUS_ERROR, G_DBUS_ERROR_SPAWN_FAILED,
                 "jmem-helper could not be started: %s%s%s%s", local->message,
                 remote != NULL ? " (" : "", remote != NULL ? remote : "", remote != NULL ? ")" : "");
  return FALSE;
}

/* The system bus, with the helper started on it. */
static GDBusConnection *
helper_bus (GError **error)
{
  g_autoptr(GDBusConnection) bus = NULL;

  /* Registers the dev.jmem.Error names before any reply is decoded. */
  (void) JMEM_ERROR;

  bus = jmem_system_bus_get (JMEM_SYSTEM_BUS_TIMEOUT_MS, error);
  if (bus == NULL || !start_helper (bus, error))
    return NULL;
  return g_steal_pointer (&bus);
}

gboolean
jmem_helper_start (GError **error)
{
  g_autoptr(GDBusConnection) bus = helper_bus (error);

  return bus != NULL;
}

/* The reply type of @method, from the interface description gdbus-codegen
 * made of dbus/dev.jmem.Helper1.xml, so GDBus checks every reply. */
static GVariantType *
reply_type (const char *method)
{
  GDBusMethodInfo *info = g_dbus_interface_info_lookup_method (jmem_helper1_interface_info (), method);
  g_autoptr(GString) type = g_string_new ("(");

  g_assert (info != NULL);
  for (guint i = 0; info->out_args != NULL && info->out_args[i] != NULL; i++)
    g_string_append (type, info->out_args[i]->signature);
  g_string_append_c (type, ')');
  return g_variant_type_new (type->str);
}

/* Whether @error is polkit wanting authentication that the call did not allow. */
static gboolean
is_challenge (const GError *error)
{
  g_autofree char *remote = g_dbus_error_get_remote_error (error);

  return g_strcmp0 (remote, INTERACTIVE_AUTH_REQUIRED) == 0;
}

/* One method call with the caller's options, whose error says what to do
 * (for polkit @action); with @fds (nullable) it receives the file
 * descriptors the reply carries. A call that may ask for a password is
 * first made without allowing it, and again with it only when polkit
 * wants authentication: a member of the group then never waits for, nor is
 * refused for want of, the places the helper keeps for checks that may ask. */
static GVariant *
call_helper_full (const JmemHelperCallOptions *options,
                  const char                  *method,
                  GVariant                    *parameters,
                  const char                  *action,
                  GUnixFDList                **fds,
                  GError                     **error)
{
  g_autoptr(GVariant) params = parameters != NULL ? g_variant_ref_sink (parameters) : NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  g_autoptr(GVariantType) type = reply_type (method);
  g_autoptr(GError) local = NULL;
  JmemHelperCallOptions plain = { .timeout_ms = options != NULL ? options->timeout_ms : 0 };
  int timeout_ms = effective_timeout (&plain);
  GVariant *reply;

  bus = helper_bus (error);
  if (bus == NULL)
    return NULL;
  reply = g_dbus_connection_call_with_unix_fd_list_sync (bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH,
                                                         JMEM_DBUS_INTERFACE, method, params, type,
                                                         G_DBUS_CALL_FLAGS_NONE, timeout_ms, NULL,
                                                         fds, NULL, &local);
  if (reply == NULL && options != NULL && options->allow_interactive && is_challenge (local))
    {
      g_clear_error (&local);
      timeout_ms = effective_timeout (options);
      reply = g_dbus_connection_call_with_unix_fd_list_sync (
          bus, JMEM_DBUS_NAME, JMEM_DBUS_PATH, JMEM_DBUS_INTERFACE, method, params, type,
          G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION, timeout_ms, NULL, fds, NULL, &local);
    }
  if (reply == NULL)
    g_propagate_error (error, jmem_helper_error_translate (g_steal_pointer (&local), action,
                                                           timeout_ms));
  return reply;
}

static GVariant *
call_helper (const JmemHelperCallOptions *options,
             const char                  *method,
             GVariant                    *parameters,
             const char                  *action,
             GError                     **error)
{
  return call_helper_full (options, method, parameters, action, NULL, error);
}

JmemNvmapClients *
jmem_helper_get_nvmap_clients (const JmemHelperCallOptions *options,
                               gint64                      *stats_total_bytes,
                               GError                     **error)
{
  g_autoptr(GVariant) reply = NULL;

  if (stats_total_bytes != NULL)
    *stats_total_bytes = -1;

  reply = call_helper (options, "GetNvMapClients", NULL, JMEM_ACTION_READ_NVMAP, error);
  if (reply == NULL)
    return NULL;
  return jmem_wire_clients_from_variant (reply, stats_total_bytes, error);
}

/* Whether @fd is the helper's sealed snapshot: the seals promise that its
 * size and bytes cannot change under us, so one size check bounds every
 * read of it. */
static gboolean
check_snapshot (int         fd,
                const char *path,
                gsize      *size,
                GError    **error)
{
  const int needed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
  struct stat st;
  int seals = fcntl (fd, F_GET_SEALS);

  if (seals < 0 || (seals & needed) != needed || fstat (fd, &st) != 0 || st.st_size < 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "jmem-helper sent a snapshot of %s that is not a sealed memfd", path);
      return FALSE;
    }
  if ((guint64) st.st_size > JMEM_MAX_DEBUGFS_BYTES)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                   "%s is larger than the %u bytes jmem accepts", path, JMEM_MAX_DEBUGFS_BYTES);
      return FALSE;
    }
  *size = (gsize) st.st_size;
  return TRUE;
}

/* The checked snapshot @fd read whole. */
static char *
read_snapshot (int         fd,
               const char *path,
               gsize      *len,
               GError    **error)
{
  g_autofree char *data = NULL;
  gsize size = 0, done = 0;

  if (!check_snapshot (fd, path, &size, error))
    return NULL;
  data = g_malloc (size + 1);
  while (done < size)
    {
      /* pread: the offset of a shared open file is nobody's to move. */
      ssize_t n = pread (fd, data + done, size - done, (off_t) done);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          int saved = n < 0 ? errno : EIO;
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                       "cannot read the snapshot of %s from jmem-helper: %s", path,
                       g_strerror (saved));
          return NULL;
        }
      done += (gsize) n;
    }
  data[done] = '\0';
  *len = done;
  return g_steal_pointer (&data);
}

/* A method that answers with a sealed snapshot of the debugfs file @path
 * (GetNvMapAllocationsSnapshot, GetNvMapMapsSnapshot): its descriptor,
 * checked, and the reply's info in *info. */
static int
call_for_snapshot (const JmemHelperCallOptions *options,
                   const char                  *method,
                   const char                  *action,
                   const char                  *path,
                   GVariant                   **info,
                   GError                     **error)
{
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local = NULL;
  gint32 handle = -1;
  gsize size = 0;
  int fd;

  reply = call_helper_full (options, method, NULL, action, &fds, error);
  if (reply == NULL)
    return -1;
  g_variant_get (reply, "(h@a{sv})", &handle, info);
  fd = fds != NULL ? g_unix_fd_list_get (fds, handle, &local) : -1;
  if (fd < 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "jmem-helper answered %s without its snapshot%s%s", method,
                   local != NULL ? ": " : "", local != NULL ? local->message : "");
      return -1;
    }
  if (!check_snapshot (fd, path, &size, error))
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* GetNvMapAllocationsSnapshot: the raw file, parsed here without privileges
 * as each output walks it. Sets *unknown_method when the helper predates it. */
static JmemNvmapAllocationsReader *
allocations_from_snapshot (const JmemHelperCallOptions *options,
                           gboolean                    *unknown_method,
                           GError                     **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GVariant) info = NULL;
  guint64 pid_namespace = 0;
  int fd;

  *unknown_method = FALSE;
  fd = call_for_snapshot (options, "GetNvMapAllocationsSnapshot", JMEM_ACTION_READ_ALLOCATIONS,
                          JMEM_NVMAP_ALLOCATIONS_PATH, &info, &local);
  if (fd < 0)
    {
      /* a helper older than the snapshot method */
      if (g_error_matches (local, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
        *unknown_method = TRUE;
      else
        g_propagate_error (error, g_steal_pointer (&local));
      return NULL;
    }
  g_variant_lookup (info, "pid_namespace", "t", &pid_namespace);
  return jmem_nvmap_allocations_reader_new_fd (fd, JMEM_NVMAP_ALLOCATIONS_PATH,
                                               JMEM_MAX_DEBUGFS_BYTES, pid_namespace);
}

JmemNvmapAllocationsReader *
jmem_helper_open_nvmap_allocations (const JmemHelperCallOptions *options,
                                    GError                     **error)
{
  g_autoptr(GVariant) reply = NULL;
  JmemNvmapAllocationsReader *reader;
  JmemNvmapAllocations *allocations;
  gboolean unknown_method = FALSE;

  reader = allocations_from_snapshot (options, &unknown_method, error);
  if (reader != NULL || !unknown_method)
    return reader;

  /* A helper older than the snapshot method: its typed reply. */
  reply = call_helper (options, "GetNvMapAllocations", NULL,
                       JMEM_ACTION_READ_ALLOCATIONS, error);
  if (reply == NULL)
    return NULL;
  allocations = jmem_wire_allocations_from_variant (reply, error);
  return allocations != NULL ? jmem_nvmap_allocations_reader_new_parsed (allocations) : NULL;
}

static gint64
info_u64 (GVariant *info, const char *key)
{
  guint64 v;

  return g_variant_lookup (info, key, "t", &v) && v <= G_MAXINT64 ? (gint64) v : -1;
}

gboolean
jmem_helper_get_nvmap_extras (const JmemHelperCallOptions *options,
                              JmemNvmapExtras             *extras,
                              char                       **maps_text,
                              GError                     **error)
{
  g_autoptr(GVariant) info = NULL;
  g_autofree char *data = NULL;
  guint64 pid_namespace = 0;
  gint64 pool, to_zero;
  gsize len = 0;
  int fd;

  jmem_nvmap_extras_clear (extras);
  fd = call_for_snapshot (options, "GetNvMapMapsSnapshot", JMEM_ACTION_READ_NVMAP,
                          JMEM_NVMAP_MAPS_PATH, &info, error);
  if (fd < 0)
    return FALSE;
  data = read_snapshot (fd, JMEM_NVMAP_MAPS_PATH, &len, error);
  close (fd);
  if (data == NULL)
    return FALSE;
  g_variant_lookup (info, "pid_namespace", "t", &pid_namespace);
  extras->page_size = info_u64 (info, "page_size");
  extras->free_size_bytes = info_u64 (info, "free_size_bytes");
  pool = info_u64 (info, "page_pool_pages");
  to_zero = info_u64 (info, "page_pool_pages_to_zero");
  if (pool >= 0)
    {
      extras->pool_to_zero = MIN (MAX (to_zero, 0), G_MAXINT64 - pool);
      extras->pool_pages = pool + extras->pool_to_zero;
    }
  extras->maps = jmem_nvmap_maps_parse (data, len, error);
  if (extras->maps == NULL)
    return FALSE;
  extras->maps->pid_namespace = pid_namespace;
  if (maps_text != NULL)
    *maps_text = g_steal_pointer (&data);
  return TRUE;
}

gboolean
jmem_helper_drop_caches (const JmemHelperCallOptions *options,
                         guint                        level,
                         gboolean                     compact,
                         GVariant                   **result,
                         GError                     **error)
{
  g_autoptr(GVariant) reply = NULL;
  GVariantBuilder opts;

  g_variant_builder_init (&opts, G_VARIANT_TYPE_VARDICT);
  if (compact)
    g_variant_builder_add (&opts, "{sv}", "compact", g_variant_new_boolean (TRUE));

  reply = call_helper (options, "DropCaches", g_variant_new ("(ua{sv})", level, &opts),
                       JMEM_ACTION_DROP_CACHES, error);
  if (reply == NULL)
    return FALSE;
  if (result != NULL)
    g_variant_get (reply, "(@a{sv})", result);
  return TRUE;
}
