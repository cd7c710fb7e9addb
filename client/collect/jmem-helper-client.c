#include "jmem-helper-client.h"
#include "jmem-helper-client-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <gio/gunixfdlist.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jmem-config.h"
#include "jmem-error.h"
#include "jmem-helper-wire.h"
#include "jmem-helper1-generated.h"
#include "jmem-names.h"

#define DEFAULT_TIMEOUT_MS      (25 * 1000)
/* A person may be typing a password for polkit: the helper waits 120 s for
 * it, and this must outlast that to hear the helper's answer. */
#define INTERACTIVE_TIMEOUT_MS  (150 * 1000)

#define GROUP_ADVICE                                                    \
  "add this account to the " JMEM_PRIVILEGED_GROUP " group "            \
  "(sudo usermod -aG " JMEM_PRIVILEGED_GROUP " \"$USER\"); polkit reads the group "      \
  "database, so the next call is allowed without logging in again"

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
        if (g_str_has_prefix (msg, JMEM_POLKIT_UNAVAILABLE))
          return g_error_new (G_DBUS_ERROR, in->code, "%s", msg);
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

/* sd_booted()'s test: only where systemd runs can it start the bus. */
gboolean
jmem_helper_systemd_runs (void)
{
  return g_file_test ("/run/systemd/system", G_FILE_TEST_IS_DIR);
}

const char *
jmem_helper_no_bus_action (gboolean systemd_runs)
{
  return systemd_runs ? "start the system bus (sudo systemctl start dbus)"
                      : "run jmem on the host, where the system bus runs";
}

static JmemHelper1 *
helper_proxy (GError **error)
{
  g_autoptr(GError) local = NULL;
  g_autoptr(GDBusConnection) bus = NULL;
  JmemHelper1 *proxy;

  /* Registers the dev.jmem.Error names before any reply is decoded. */
  (void) JMEM_ERROR;

  bus = g_bus_get_sync (G_BUS_TYPE_SYSTEM, NULL, &local);
  if (bus == NULL)
    {
      /* without systemd nothing starts a bus: a container or a chroot */
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                   "cannot reach the system bus (%s)%s", local->message,
                   jmem_helper_systemd_runs () ? ""
                   : ": this system runs none, as in a container or a chroot without systemd");
      return NULL;
    }

  proxy = jmem_helper1_proxy_new_sync (bus,
                                       G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES |
                                       G_DBUS_PROXY_FLAGS_DO_NOT_CONNECT_SIGNALS,
                                       JMEM_DBUS_NAME, JMEM_DBUS_PATH, NULL, &local);
  if (proxy == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED,
                   "cannot talk to %s on the system bus: %s", JMEM_DBUS_NAME, local->message);
      return NULL;
    }
  return proxy;
}

/* One method call with the caller's flags and timeout. The generated proxy
 * carries the interface description, so GDBus checks the reply's type. */
static GVariant *
call_helper (const JmemHelperCallOptions *options,
             const char                  *method,
             GVariant                    *parameters,
             const char                  *action,
             GError                     **error)
{
  g_autoptr(GVariant) params = parameters != NULL ? g_variant_ref_sink (parameters) : NULL;
  g_autoptr(JmemHelper1) proxy = NULL;
  g_autoptr(GError) local = NULL;
  GDBusCallFlags flags = G_DBUS_CALL_FLAGS_NONE;
  int timeout_ms = effective_timeout (options);
  GVariant *reply;

  proxy = helper_proxy (error);
  if (proxy == NULL)
    return NULL;

  if (options != NULL && options->allow_interactive)
    flags |= G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;

  reply = g_dbus_proxy_call_sync (G_DBUS_PROXY (proxy), method, params, flags,
                                  timeout_ms, NULL, &local);
  if (reply == NULL)
    g_propagate_error (error, jmem_helper_error_translate (g_steal_pointer (&local),
                                                           action, timeout_ms));
  return reply;
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

/* Reads the helper's sealed snapshot: the seals promise that its size and
 * bytes cannot change under us, so one size check bounds the read. */
static char *
read_snapshot (int         fd,
               const char *path,
               gsize      *len,
               GError    **error)
{
  const int needed = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
  g_autofree char *data = NULL;
  struct stat st;
  gsize done = 0;
  int seals = fcntl (fd, F_GET_SEALS);

  if (seals < 0 || (seals & needed) != needed || fstat (fd, &st) != 0 || st.st_size < 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "jmem-helper sent a snapshot of %s that is not a sealed memfd", path);
      return NULL;
    }
  if ((guint64) st.st_size > JMEM_MAX_DEBUGFS_BYTES)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_TOO_LARGE,
                   "%s is larger than the %u bytes jmem accepts", path, JMEM_MAX_DEBUGFS_BYTES);
      return NULL;
    }

  data = g_malloc ((gsize) st.st_size + 1);
  while (done < (gsize) st.st_size)
    {
      /* pread: the offset of a shared open file is nobody's to move. */
      ssize_t n = pread (fd, data + done, (gsize) st.st_size - done, (off_t) done);

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

/* GetNvMapAllocationsSnapshot: the raw file, parsed here without privileges.
 * Sets *unknown_method when the helper predates it. */
static JmemNvmapAllocations *
allocations_from_snapshot (const JmemHelperCallOptions *options,
                           gboolean                    *unknown_method,
                           GError                     **error)
{
  g_autoptr(JmemHelper1) proxy = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GError) local = NULL;
  g_autoptr(GVariant) info = NULL;
  g_autofree char *data = NULL;
  JmemNvmapAllocations *allocations;
  GDBusCallFlags flags = G_DBUS_CALL_FLAGS_NONE;
  int timeout_ms = effective_timeout (options);
  guint64 pid_namespace = 0;
  gint32 handle = -1;
  gsize len = 0;
  int fd;

  *unknown_method = FALSE;
  proxy = helper_proxy (error);
  if (proxy == NULL)
    return NULL;
  if (options != NULL && options->allow_interactive)
    flags |= G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;

  reply = g_dbus_proxy_call_with_unix_fd_list_sync (G_DBUS_PROXY (proxy),
                                                    "GetNvMapAllocationsSnapshot", NULL, flags,
                                                    timeout_ms, NULL, &fds, NULL, &local);
  if (reply == NULL)
    {
      if (g_error_matches (local, G_DBUS_ERROR, G_DBUS_ERROR_UNKNOWN_METHOD))
        {
          *unknown_method = TRUE;
          return NULL;
        }
      g_propagate_error (error, jmem_helper_error_translate (g_steal_pointer (&local),
                                                             JMEM_ACTION_READ_ALLOCATIONS,
                                                             timeout_ms));
      return NULL;
    }

  g_variant_get (reply, "(h@a{sv})", &handle, &info);
  g_variant_lookup (info, "pid_namespace", "t", &pid_namespace);
  fd = fds != NULL ? g_unix_fd_list_get (fds, handle, &local) : -1;
  if (fd < 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "jmem-helper answered without the allocations snapshot%s%s",
                   local != NULL ? ": " : "", local != NULL ? local->message : "");
      return NULL;
    }
  data = read_snapshot (fd, JMEM_NVMAP_ALLOCATIONS_PATH, &len, error);
  close (fd);
  if (data == NULL)
    return NULL;
  allocations = jmem_nvmap_allocations_parse (data, len, error);
  if (allocations != NULL)
    allocations->pid_namespace = pid_namespace;
  return allocations;
}

JmemNvmapAllocations *
jmem_helper_get_nvmap_allocations (const JmemHelperCallOptions *options,
                                   GError                     **error)
{
  g_autoptr(GVariant) reply = NULL;
  JmemNvmapAllocations *allocations;
  gboolean unknown_method = FALSE;

  allocations = allocations_from_snapshot (options, &unknown_method, error);
  if (allocations != NULL || !unknown_method)
    return allocations;

  /* A helper older than the snapshot method: its typed reply. */
  reply = call_helper (options, "GetNvMapAllocations", NULL,
                       JMEM_ACTION_READ_ALLOCATIONS, error);
  if (reply == NULL)
    return NULL;
  return jmem_wire_allocations_from_variant (reply, error);
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
  g_autoptr(JmemHelper1) proxy = NULL;
  g_autoptr(GUnixFDList) fds = NULL;
  g_autoptr(GVariant) reply = NULL;
  g_autoptr(GVariant) info = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *data = NULL;
  GDBusCallFlags flags = G_DBUS_CALL_FLAGS_NONE;
  int timeout_ms = effective_timeout (options);
  guint64 pid_namespace = 0;
  gint64 pool, to_zero;
  gint32 handle = -1;
  gsize len = 0;
  int fd;

  jmem_nvmap_extras_clear (extras);
  proxy = helper_proxy (error);
  if (proxy == NULL)
    return FALSE;
  if (options != NULL && options->allow_interactive)
    flags |= G_DBUS_CALL_FLAGS_ALLOW_INTERACTIVE_AUTHORIZATION;
  reply = g_dbus_proxy_call_with_unix_fd_list_sync (G_DBUS_PROXY (proxy), "GetNvMapMapsSnapshot",
                                                    NULL, flags, timeout_ms, NULL, &fds, NULL,
                                                    &local);
  if (reply == NULL)
    {
      g_propagate_error (error, jmem_helper_error_translate (g_steal_pointer (&local),
                                                             JMEM_ACTION_READ_NVMAP, timeout_ms));
      return FALSE;
    }
  g_variant_get (reply, "(h@a{sv})", &handle, &info);
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

  fd = fds != NULL ? g_unix_fd_list_get (fds, handle, &local) : -1;
  if (fd < 0)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "jmem-helper answered without the maps snapshot%s%s",
                   local != NULL ? ": " : "", local != NULL ? local->message : "");
      return FALSE;
    }
  data = read_snapshot (fd, JMEM_NVMAP_MAPS_PATH, &len, error);
  close (fd);
  if (data == NULL)
    return FALSE;
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

const char *
jmem_helper_error_action (const GError *error)
{
  if (error == NULL)
    return NULL;

  if (error->domain == G_DBUS_ERROR)
    switch (error->code)
      {
      case G_DBUS_ERROR_SERVICE_UNKNOWN:
      case G_DBUS_ERROR_NAME_HAS_NO_OWNER:
        return "install the jmem package (it provides jmem-helper)";
      case G_DBUS_ERROR_ACCESS_DENIED:
        if (g_str_has_prefix (error->message, JMEM_POLKIT_UNAVAILABLE))
          return "install and start polkit (package polkitd; sudo systemctl start polkit)";
        return GROUP_ADVICE;
      case G_DBUS_ERROR_AUTH_FAILED:
        return "run jmem in a terminal so it can ask for a password, or " GROUP_ADVICE;
      case G_DBUS_ERROR_NO_REPLY:
        return "check the helper's log (journalctl -u jmem-helper) and that polkit is running";
      case G_DBUS_ERROR_SPAWN_FAILED:
        return "check the helper's log (journalctl -u jmem-helper)";
      case G_DBUS_ERROR_UNKNOWN_METHOD:
        return "install matching versions of jmem and jmem-helper";
      default:
        return NULL;
      }

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_CONNECTED))
    return jmem_helper_no_bus_action (jmem_helper_systemd_runs ());

  if (error->domain == JMEM_ERROR)
    switch ((JmemError) error->code)
      {
      case JMEM_ERROR_NOT_AVAILABLE:  /* the message says there is no NvMap: nothing to do */
      case JMEM_ERROR_RATE_LIMITED:  /* the message names the wait: once is enough */
      case JMEM_ERROR_TOO_LARGE:
      case JMEM_ERROR_FAILED:
      case JMEM_ERROR_INVALID_ARGUMENT:
        return NULL;
      case JMEM_ERROR_POLKIT_UNAVAILABLE:
        return "install and start polkit (package polkitd; sudo systemctl start polkit)";
      }
  return NULL;
}
