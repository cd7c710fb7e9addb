/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-helper-methods.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gunixfdlist.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-helper-log.h"
#include "jmem-helper-snapshot.h"
#include "jmem-helper-wire.h"
#include "jmem-names.h"
#include "jmem-nvmap.h"
#include "jmem-pid-namespace.h"
#include "jmem-polkit.h"
#include "jmem-rate-limit.h"
#include "jmem-refusal-log.h"
#include "jmem-snapshot-pins.h"

struct _JmemHelperMethods {
  JmemHelper1  *skeleton;
  gulong        handlers[5];
  JmemRateLimit drop_limit;
  JmemSealedReader *allocations;
  JmemSealedReader *maps;
  JmemSnapshotPins *pins;  /* NULL: no inotify, so no snapshot is handed out */
  GError       *pins_error;
  gint          trim_pending;
  /* The answers, counted per uid and interval as the gate counts refusals:
   * a caller in a loop would otherwise write a line a call. Handlers run
   * in worker threads, hence the lock. */
  GMutex          calls_lock;
  JmemRefusalLog *calls;
  guint           calls_flush_id;
};

static gboolean
on_calls_flush (gpointer user_data)
{
  JmemHelperMethods *self = user_data;
  gint64 now = g_get_monotonic_time ();
  gint64 next;

  g_mutex_lock (&self->calls_lock);
  next = jmem_refusal_log_flush (self->calls, now);
  self->calls_flush_id = next == 0 ? 0
    : g_timeout_add ((guint) MAX ((next - now) / 1000, 1), on_calls_flush, self);
  g_mutex_unlock (&self->calls_lock);
  return G_SOURCE_REMOVE;
}

/* Logs an answer: at once when it is the uid's first for a while, else
 * counted into one line per interval (jmem-refusal-log.h). */
static void
log_call (JmemHelperMethods     *self,
          GDBusMethodInvocation *invocation,
          const char            *action,
          const GError          *error)
{
  const char *result = error == NULL ? "ok"
    : g_error_matches (error, JMEM_ERROR, JMEM_ERROR_RATE_LIMITED) ? "rate-limited" : "failed";

  g_mutex_lock (&self->calls_lock);
  jmem_refusal_log_add (self->calls, g_get_monotonic_time (), action,
                        jmem_polkit_caller_uid (invocation), result,
                        error != NULL ? error->message : NULL);
  /* the default main context runs the timer, whichever thread adds it */
  if (self->calls_flush_id == 0)
    self->calls_flush_id = g_timeout_add_seconds (JMEM_REFUSAL_LOG_INTERVAL_S, on_calls_flush, self);
  g_mutex_unlock (&self->calls_lock);
}

/* Answers @invocation with @reply or @error (taken). */
static void
answer (GDBusMethodInvocation *invocation,
        GVariant              *reply,
        GError                *error)
{
  if (reply != NULL)
    g_dbus_method_invocation_return_value (invocation, reply);
  else
    {
      g_dbus_method_invocation_return_gerror (invocation, error);
      g_error_free (error);
    }
}

/* answer(), logging the answer. */
static void
finish (JmemHelperMethods     *self,
        GDBusMethodInvocation *invocation,
        const char            *action,
        GVariant              *reply,
        GError                *error)
{
  log_call (self, invocation, action, error);
  answer (invocation, reply, error);
}

/* A cache drop carried out changes the system: its own line, always,
 * whatever else the caller did (@error: compaction failed after it). */
static void
finish_drop (GDBusMethodInvocation *invocation,
             GVariant              *reply,
             GError                *error)
{
  jmem_helper_log_action (JMEM_ACTION_DROP_CACHES, jmem_polkit_caller_uid (invocation),
                          reply != NULL ? "ok" : "failed", error != NULL ? error->message : NULL);
  answer (invocation, reply, error);
}

/* debugfs: absent means no NvMap here; anything else is a failure whose
 * reason the caller should see. */
static char *
read_debugfs (const char  *path,
              gsize       *len,
              GError     **error)
{
  g_autoptr(GError) local = NULL;
  char *data = NULL;

  if (jmem_file_read_capped (path, JMEM_MAX_DEBUGFS_BYTES, &data, len, &local))
    return data;

  if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
    g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                 "NvMap is not present on this kernel: %s does not exist "
                 "(no nvgpu NvMap, or debugfs not mounted)", path);
  else if (local->domain == JMEM_ERROR)
    g_propagate_error (error, g_steal_pointer (&local));
  else if (g_error_matches (local, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
    /* EACCES/EPERM: the helper holds no capability, and this kernel checks
     * one (Linux and the nvmap driver as shipped do not). */
    g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                 "%s: this kernel wants a capability for it; grant the helper "
                 "CAP_DAC_READ_SEARCH with a drop-in (see the operator guide)", local->message);
  else
    g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "%s", local->message);
  return NULL;
}

static gint64
read_stats_total (void)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  guint64 bytes;

  /* Optional detail: older kernels have no stats/ directory. */
  if (!jmem_file_read_capped (JMEM_NVMAP_TOTAL_MEMORY_PATH, JMEM_MAX_SMALL_BYTES, &data, &len, NULL) ||
      !jmem_nvmap_total_memory_parse (data, len, &bytes, NULL) ||
      bytes > G_MAXINT64)
    return -1;
  return (gint64) bytes;
}

static gboolean
on_get_nvmap_clients (JmemHelper1           *skeleton,
                      GDBusMethodInvocation *invocation,
                      gpointer               user_data)
{
  JmemHelperMethods *self = user_data;
  g_autoptr(JmemNvmapClients) clients = NULL;
  g_autofree char *data = NULL;
  GError *error = NULL;
  gsize len = 0;

  data = read_debugfs (JMEM_NVMAP_CLIENTS_PATH, &len, &error);
  if (data != NULL)
    clients = jmem_nvmap_clients_parse (data, len, &error);
  /* The helper runs in the host's PID namespace, whose PIDs NvMap prints:
   * say so, for a caller in a container. */
  if (clients != NULL)
    clients->pid_namespace = jmem_pid_namespace_self ();
  finish (self, invocation, JMEM_ACTION_READ_NVMAP,
          clients != NULL ? jmem_wire_clients_to_variant (clients, read_stats_total ()) : NULL,
          error);
  return TRUE;
}

/* ---- allocations: one snapshot per read, shared ---------------------- */

/* A big reply leaves freed heap behind in the worker threads' arenas; give
 * it back to the kernel once the message has been written out. */
static gboolean
trim_heap (gpointer user_data)
{
  JmemHelperMethods *self = user_data;

  g_atomic_int_set (&self->trim_pending, 0);
  malloc_trim (0);
  return G_SOURCE_REMOVE;
}

static void
schedule_trim (JmemHelperMethods *self)
{
  if (g_atomic_int_compare_and_exchange (&self->trim_pending, 0, 1))
    g_timeout_add_seconds (1, trim_heap, self);
}

static GVariant *
snapshot_info (const JmemSealedFile *snapshot)
{
  GVariantBuilder info;

  g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&info, "{sv}", "read_id", g_variant_new_uint64 (snapshot->read_id));
  g_variant_builder_add (&info, "{sv}", "shared_by", g_variant_new_uint32 (snapshot->shared_by));
  return g_variant_builder_end (&info);
}

typedef struct {
  JmemHelperMethods     *self;
  GDBusMethodInvocation *invocation;
} AllocationsCall;

/* Reads @reader's file (shared with the calls reading it at the same time)
 * for @invocation, then @done answers it. */
static gboolean
read_for_call (JmemHelperMethods     *self,
               GDBusMethodInvocation *invocation,
               JmemSealedReader      *reader,
               GAsyncReadyCallback    done)
{
  AllocationsCall *call = g_new0 (AllocationsCall, 1);

  call->self = self;
  call->invocation = g_object_ref (invocation);
  jmem_sealed_reader_get_async (reader, done, call);
  return TRUE;
}

static void
allocations_call_free (AllocationsCall *call)
{
  g_object_unref (call->invocation);
  g_free (call);
}

static void
visit_client (JmemNvmapClient *client,
              gpointer         user_data)
{
  jmem_wire_allocations_builder_add_client (user_data, client);
  jmem_nvmap_client_free (client);
}

static void
visit_handle (JmemNvmapHandle *handle,
              gpointer         user_data)
{
  jmem_wire_allocations_builder_add_handle (user_data, handle);
  jmem_nvmap_handle_free (handle);
}

/* Parses the snapshot straight into the reply: one row at a time in
 * memory, beside the mapped file and the serialised reply. */
static GVariant *
allocations_reply (JmemSealedFile  *snapshot,
                   GError       **error)
{
  static const JmemNvmapAllocationsVisitor visitor = { visit_client, visit_handle };
  g_autoptr(JmemWireAllocationsBuilder) builder = jmem_wire_allocations_builder_new ();
  JmemNvmapAllocations summary = { 0 };
  gboolean ok;
  void *map;

  if (snapshot->size == 0)
    {
      /* mmap refuses 0 bytes; the parser says what is wrong with an empty file. */
      (void) jmem_nvmap_allocations_visit ("", 0, &visitor, builder, &summary, error);
      return NULL;
    }

  map = mmap (NULL, snapshot->size, PROT_READ, MAP_SHARED, snapshot->fd, 0);
  if (map == MAP_FAILED)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot map the snapshot: %s",
                   g_strerror (saved));
      return NULL;
    }
  (void) madvise (map, snapshot->size, MADV_SEQUENTIAL);
  ok = jmem_nvmap_allocations_visit (map, snapshot->size, &visitor, builder, &summary, error);
  munmap (map, snapshot->size);
  if (!ok)
    return NULL;
  summary.pid_namespace = jmem_pid_namespace_self ();
  return g_variant_ref_sink (jmem_wire_allocations_builder_end (builder, &summary,
                                                                snapshot_info (snapshot)));
}

static void
allocations_reply_in_thread (GTask        *task,
                             gpointer      source_object,
                             gpointer      task_data,
                             GCancellable *cancellable)
{
  GError *error = NULL;
  GVariant *reply = allocations_reply (task_data, &error);

  if (reply != NULL)
    g_task_return_pointer (task, reply, (GDestroyNotify) g_variant_unref);
  else
    g_task_return_error (task, error);
}

static void
on_allocations_reply (GObject      *source,
                      GAsyncResult *result,
                      gpointer      user_data)
{
  AllocationsCall *call = user_data;
  GError *error = NULL;
  g_autoptr(GVariant) reply = g_task_propagate_pointer (G_TASK (result), &error);

  finish (call->self, call->invocation, JMEM_ACTION_READ_ALLOCATIONS, reply, error);
  schedule_trim (call->self);
  allocations_call_free (call);
}

static void
on_allocations_snapshot (GObject      *source,
                         GAsyncResult *result,
                         gpointer      user_data)
{
  AllocationsCall *call = user_data;
  GError *error = NULL;
  g_autoptr(JmemSealedFile) snapshot = jmem_sealed_reader_get_finish (result, &error);
  g_autoptr(GTask) task = NULL;

  if (snapshot == NULL)
    {
      finish (call->self, call->invocation, JMEM_ACTION_READ_ALLOCATIONS, NULL, error);
      allocations_call_free (call);
      return;
    }
  /* Parsing 60,000 handles takes a while: not on the main loop. */
  task = g_task_new (NULL, NULL, on_allocations_reply, call);
  g_task_set_task_data (task, jmem_sealed_file_ref (snapshot), (GDestroyNotify) jmem_sealed_file_unref);
  g_task_run_in_thread (task, allocations_reply_in_thread);
}

static gboolean
on_get_nvmap_allocations (JmemHelper1           *skeleton,
                          GDBusMethodInvocation *invocation,
                          gpointer               user_data)
{
  JmemHelperMethods *self = user_data;

  return read_for_call (self, invocation, self->allocations, on_allocations_snapshot);
}

/* The answer of a snapshot method (GetNvMapAllocationsSnapshot,
 * GetNvMapMapsSnapshot): a read-only descriptor of the snapshot and, in
 * its info, what every caller checks it by, then what @add_info (nullable)
 * tells beside it. */
static void
reply_with_snapshot (AllocationsCall *call,
                     const char      *action,
                     GAsyncResult    *result,
                     void           (*add_info) (GVariantBuilder *info))
{
  GError *error = NULL;
  g_autoptr(JmemSealedFile) snapshot = jmem_sealed_reader_get_finish (result, &error);
  g_autoptr(GUnixFDList) fds = NULL;
  GVariantBuilder info;
  int fd = -1;

  if (snapshot != NULL && call->self->pins == NULL)
    error = g_error_copy (call->self->pins_error);
  else if (snapshot != NULL)
    fd = jmem_snapshot_pins_open (call->self->pins, snapshot,
                                  jmem_polkit_caller_uid (call->invocation), &error);
  if (fd < 0)
    {
      finish (call->self, call->invocation, action, NULL, error);
      allocations_call_free (call);
      return;
    }

  fds = g_unix_fd_list_new_from_array (&fd, 1);  /* takes fd */
  g_variant_builder_init (&info, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&info, "{sv}", "size", g_variant_new_uint64 (snapshot->size));
  g_variant_builder_add (&info, "{sv}", "read_id", g_variant_new_uint64 (snapshot->read_id));
  g_variant_builder_add (&info, "{sv}", "shared_by", g_variant_new_uint32 (snapshot->shared_by));
  g_variant_builder_add (&info, "{sv}", "pid_namespace", g_variant_new_uint64 (jmem_pid_namespace_self ()));
  if (add_info != NULL)
    add_info (&info);
  log_call (call->self, call->invocation, action, NULL);
  g_dbus_method_invocation_return_value_with_unix_fd_list (call->invocation,
                                                           g_variant_new ("(ha{sv})", 0, &info),
                                                           fds);
  allocations_call_free (call);
}

static void
on_allocations_snapshot_fd (GObject      *source,
                            GAsyncResult *result,
                            gpointer      user_data)
{
  reply_with_snapshot (user_data, JMEM_ACTION_READ_ALLOCATIONS, result, NULL);
}

static gboolean
on_get_nvmap_allocations_snapshot (JmemHelper1           *skeleton,
                                   GDBusMethodInvocation *invocation,
                                   GUnixFDList           *fd_list,
                                   gpointer               user_data)
{
  JmemHelperMethods *self = user_data;

  return read_for_call (self, invocation, self->allocations, on_allocations_snapshot_fd);
}

/* ---- maps, free_size and the page pool: what the RAM accounting reads -- */

/* One of NvMap's small counters, or nothing (older kernels lack some). */
static void
add_counter (GVariantBuilder *info, const char *key, const char *path)
{
  g_autofree char *data = NULL;
  gsize len = 0;
  guint64 value;

  if (jmem_file_read_capped (path, JMEM_MAX_SMALL_BYTES, &data, &len, NULL) &&
      jmem_nvmap_counter_parse (data, len, &value, NULL))
    g_variant_builder_add (info, "{sv}", key, g_variant_new_uint64 (value));
}

static void
add_free_size (GVariantBuilder *info)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len = 0;
  guint64 bytes;

  if (!jmem_file_read_capped (JMEM_NVMAP_FREE_SIZE_PATH, JMEM_MAX_SMALL_BYTES, &data, &len, NULL))
    return;  /* before R36 there is no free_size */
  if (jmem_nvmap_free_size_parse (data, len, &bytes, &error))
    g_variant_builder_add (info, "{sv}", "free_size_bytes", g_variant_new_uint64 (bytes));
  else
    g_variant_builder_add (info, "{sv}", "free_size_error", g_variant_new_string (error->message));
}

/* What the RAM accounting reads beside iovmm/maps. */
static void
add_maps_info (GVariantBuilder *info)
{
  /* the page pool counts pages of this kernel's size */
  g_variant_builder_add (info, "{sv}", "page_size",
                         g_variant_new_uint64 ((guint64) sysconf (_SC_PAGESIZE)));
  add_counter (info, "page_pool_pages", JMEM_NVMAP_POOL_PAGES_PATH);
  add_counter (info, "page_pool_pages_to_zero", JMEM_NVMAP_POOL_TO_ZERO_PATH);
  add_free_size (info);
}

static void
on_maps_snapshot (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  reply_with_snapshot (user_data, JMEM_ACTION_READ_NVMAP, result, add_maps_info);
}

static gboolean
on_get_nvmap_maps_snapshot (JmemHelper1           *skeleton,
                            GDBusMethodInvocation *invocation,
                            GUnixFDList           *fd_list,
                            gpointer               user_data)
{
  JmemHelperMethods *self = user_data;

  return read_for_call (self, invocation, self->maps, on_maps_snapshot);
}

gboolean
jmem_drop_caches_check_request (guint      level,
                                GVariant  *options,
                                gboolean  *compact,
                                GError   **error)
{
  GVariantIter iter;
  const char *key;
  GVariant *value;

  *compact = FALSE;
  if (level < 1 || level > 3)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "level must be 1 (page cache), 2 (dentries and inodes) or 3 (both), not %u",
                   level);
      return FALSE;
    }

  g_variant_iter_init (&iter, options);
  while (g_variant_iter_loop (&iter, "{&sv}", &key, &value))
    {
      if (g_str_equal (key, "compact") && g_variant_is_of_type (value, G_VARIANT_TYPE_BOOLEAN))
        {
          *compact = g_variant_get_boolean (value);
          continue;
        }
      /* An option that is silently ignored would be a lie about what was done. */
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "unknown option \"%s\" of type %s: DropCaches takes only compact (b)",
                   key, g_variant_get_type_string (value));
      g_variant_unref (value);
      return FALSE;
    }
  return TRUE;
}

static gboolean
write_proc (const char *path,
            const char *text,
            GError    **error)
{
  gsize len = strlen (text);
  ssize_t n;
  int fd = open (path, O_WRONLY | O_CLOEXEC | O_NOCTTY);

  if (fd < 0 && errno == ENOENT)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                   "%s does not exist on this kernel", path);
      return FALSE;
    }
  if (fd < 0)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot open %s for writing: %s%s",
                   path, g_strerror (saved),
                   saved == EROFS ? " (the unit needs ReadWritePaths= for it)" : "");
      return FALSE;
    }
  do
    n = write (fd, text, len);
  while (n < 0 && errno == EINTR);
  if (n != (ssize_t) len)
    {
      int saved = n < 0 ? errno : EIO;
      close (fd);
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot write %s: %s",
                   path, g_strerror (saved));
      return FALSE;
    }
  if (close (fd) != 0)
    {
      int saved = errno;
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED, "cannot write %s: %s",
                   path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gboolean
on_drop_caches (JmemHelper1           *skeleton,
                GDBusMethodInvocation *invocation,
                guint                  level,
                GVariant              *options,
                gpointer               user_data)
{
  JmemHelperMethods *self = user_data;
  g_autofree char *text = NULL;
  GVariantBuilder result;
  GError *error = NULL;
  gboolean compact;
  guint wait_s = 0;

  if (!jmem_drop_caches_check_request (level, options, &compact, &error))
    {
      finish (self, invocation, JMEM_ACTION_DROP_CACHES, NULL, error);
      return TRUE;
    }

  /* Asked for both and one cannot be done: do neither, and keep the rate
   * for a call without compact. */
  if (compact && access (JMEM_COMPACT_MEMORY_PATH, F_OK) != 0 && errno == ENOENT)
    {
      error = g_error_new (JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
                           "cannot compact memory: %s does not exist (a kernel without "
                           "CONFIG_COMPACTION); nothing was dropped, ask again without compact",
                           JMEM_COMPACT_MEMORY_PATH);
      finish (self, invocation, JMEM_ACTION_DROP_CACHES, NULL, error);
      return TRUE;
    }

  if (!jmem_rate_limit_try (&self->drop_limit, g_get_monotonic_time (), &wait_s))
    {
      error = g_error_new (JMEM_ERROR, JMEM_ERROR_RATE_LIMITED,
                           "caches were dropped less than %d s ago: try again in %u s",
                           JMEM_DROP_CACHES_INTERVAL_S, wait_s);
      finish (self, invocation, JMEM_ACTION_DROP_CACHES, NULL, error);
      return TRUE;
    }

  /* Dirty pages are not dropped; writing them out first makes the drop count. */
  sync ();
  g_variant_builder_init (&result, G_VARIANT_TYPE_VARDICT);
  g_variant_builder_add (&result, "{sv}", "synced", g_variant_new_boolean (TRUE));

  text = g_strdup_printf ("%u\n", level);
  if (!write_proc (JMEM_DROP_CACHES_PATH, text, &error))
    {
      g_variant_builder_clear (&result);
      finish (self, invocation, JMEM_ACTION_DROP_CACHES, NULL, error);
      return TRUE;
    }
  g_variant_builder_add (&result, "{sv}", "drop_caches", g_variant_new_uint32 (level));

  if (compact && !write_proc (JMEM_COMPACT_MEMORY_PATH, "1\n", &error))
    {
      g_variant_builder_clear (&result);
      g_prefix_error (&error, "caches were dropped (level %u), but compaction failed: ", level);
      finish_drop (invocation, NULL, error);
      return TRUE;
    }
  g_variant_builder_add (&result, "{sv}", "compact_memory", g_variant_new_boolean (compact));

  finish_drop (invocation, g_variant_new ("(@a{sv})", g_variant_builder_end (&result)), NULL);
  return TRUE;
}

JmemHelperMethods *
jmem_helper_methods_new (JmemHelper1 *skeleton)
{
  JmemHelperMethods *self = g_new0 (JmemHelperMethods, 1);

  /* A fixed threshold keeps every big buffer of a big reply (the handles,
   * the serialised body, the message) in a mapping of its own, unmapped
   * when freed. glibc would otherwise raise the threshold after the first
   * such free and serve the next call from a worker thread's arena, whose
   * top malloc_trim() never gives back. */
  mallopt (M_MMAP_THRESHOLD, 128 * 1024);
  self->skeleton = g_object_ref (skeleton);
  g_mutex_init (&self->calls_lock);
  self->calls = jmem_refusal_log_new_for (JMEM_REFUSAL_LOG_INTERVAL_S * G_USEC_PER_SEC, "answered");
  self->pins = jmem_snapshot_pins_new (JMEM_SNAPSHOT_PINS_MAX_PER_UID, &self->pins_error);
  if (self->pins == NULL)
    g_warning ("%s: the snapshot methods refuse every call", self->pins_error->message);
  jmem_rate_limit_init (&self->drop_limit, JMEM_DROP_CACHES_INTERVAL_S * G_USEC_PER_SEC);
  self->handlers[0] = g_signal_connect (skeleton, "handle-get-nvmap-clients",
                                        G_CALLBACK (on_get_nvmap_clients), self);
  self->handlers[1] = g_signal_connect (skeleton, "handle-get-nvmap-allocations",
                                        G_CALLBACK (on_get_nvmap_allocations), self);
  self->handlers[2] = g_signal_connect (skeleton, "handle-drop-caches",
                                        G_CALLBACK (on_drop_caches), self);
  self->handlers[3] = g_signal_connect (skeleton, "handle-get-nvmap-allocations-snapshot",
                                        G_CALLBACK (on_get_nvmap_allocations_snapshot), self);
  self->allocations = jmem_sealed_reader_new (JMEM_NVMAP_ALLOCATIONS_PATH,
                                              JMEM_MAX_DEBUGFS_BYTES,
                                              JMEM_NVMAP_TABLE_ALLOCATIONS,
                                              JMEM_NVMAP_REDACT_UIDS);
  /* maps prints a kernel pointer in the same UID column, and the address
   * layout of every process mapping NvMap, which /proc/PID/maps shows
   * only to its owner: read-nvmap (the metrics account) gets the sizes */
  self->maps = jmem_sealed_reader_new (JMEM_NVMAP_MAPS_PATH, JMEM_MAX_DEBUGFS_BYTES,
                                       JMEM_NVMAP_TABLE_MAPS,
                                       JMEM_NVMAP_REDACT_UIDS | JMEM_NVMAP_REDACT_VMAS);
  self->handlers[4] = g_signal_connect (skeleton, "handle-get-nvmap-maps-snapshot",
                                        G_CALLBACK (on_get_nvmap_maps_snapshot), self);
  return self;
}

void
jmem_helper_methods_free (JmemHelperMethods *self)
{
  if (self == NULL)
    return;
  for (gsize i = 0; i < G_N_ELEMENTS (self->handlers); i++)
    g_signal_handler_disconnect (self->skeleton, self->handlers[i]);
  g_object_unref (self->skeleton);
  jmem_rate_limit_clear (&self->drop_limit);
  jmem_sealed_reader_free (self->allocations);
  jmem_sealed_reader_free (self->maps);
  jmem_snapshot_pins_free (self->pins);
  g_clear_error (&self->pins_error);
  if (self->calls_flush_id != 0)
    g_source_remove (self->calls_flush_id);
  jmem_refusal_log_free (self->calls);  /* writes what is still counted */
  g_mutex_clear (&self->calls_lock);
  g_free (self);
}

gboolean
jmem_helper_methods_keep_running (JmemHelperMethods *self)
{
  return jmem_rate_limit_active (&self->drop_limit, g_get_monotonic_time ()) ||
         (self->pins != NULL && jmem_snapshot_pins_any (self->pins));
}
