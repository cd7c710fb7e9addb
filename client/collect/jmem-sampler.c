/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What each process's files gave, kept between samples (jmem-sampler.h). */
#include "jmem-sampler.h"

#include "jmem-collect-private.h"
#include "jmem-procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <sys/resource.h>
#include <unistd.h>

/* Descriptors left for everything else (the bus, the helper's memfd,
 * programs' pipes) when statm files are held open. */
#define FDS_SPARED 256
/* statm is seven numbers: well under this. */
#define STATM_MAX_BYTES 256

typedef struct {
  int            statm_fd;    /* /proc/PID/statm held open (live system), or -1 */
  JmemProcStatm  statm;       /* of the last sample */
  gboolean       have_statm;
  JmemProcStatm  read_statm;  /* when @kept was read */
  gboolean       have_read_statm;
  JmemProcess   *kept;        /* as last read whole; NULL until it was */
  JmemPssUnknown why;         /* why it had no PSS then; 0 when it had */
  guint          age;         /* samples since @kept was read */
  guint64        seen;        /* the last sample that listed it */
} Entry;

struct _JmemSampler {
  guint       refresh;
  guint       n_fds;     /* statm files held open */
  guint       max_fds;   /* 0 until the limit was looked at */
  guint64     index;     /* the sample in progress, from 1 */
  GHashTable *entries;   /* PID -> Entry */
  guint       n_read;
  guint       n_kept;
};

static void
entry_free (Entry *e)
{
  if (e->statm_fd >= 0)
    close (e->statm_fd);
  g_clear_pointer (&e->kept, jmem_process_free);
  g_free (e);
}

JmemSampler *
jmem_sampler_new (guint refresh_samples)
{
  JmemSampler *s = g_new0 (JmemSampler, 1);

  s->refresh = MAX (refresh_samples, 1);
  s->entries = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify) entry_free);
  return s;
}

void
jmem_sampler_free (JmemSampler *s)
{
  if (s == NULL)
    return;
  g_hash_table_unref (s->entries);
  g_free (s);
}

guint
jmem_sampler_get_refresh (const JmemSampler *s)
{
  return s->refresh;
}

void
jmem_sampler_get_counts (const JmemSampler *s,
                         guint             *n_read,
                         guint             *n_kept)
{
  *n_read = s->n_read;
  *n_kept = s->n_kept;
}

void
jmem_sampler_begin (JmemSampler *s)
{
  s->index++;
  s->n_read = s->n_kept = 0;
}

static gboolean
forget_unseen (gpointer key, gpointer value, gpointer data)
{
  const Entry *e = value;
  JmemSampler *s = data;

  if (e->seen == s->index)
    return FALSE;
  if (e->statm_fd >= 0)
    s->n_fds--;
  return TRUE;
}

void
jmem_sampler_end (JmemSampler *s)
{
  g_hash_table_foreach_remove (s->entries, forget_unseen, s);
}

/* Its turn: (index + pid) % refresh spreads the whole reads over the
 * samples; the age bound holds even where a turn was missed. */
static gboolean
due (const JmemSampler *s, const Entry *e, gint64 pid)
{
  return e->age + 1 >= s->refresh || (s->index + (guint64) pid) % s->refresh == 0;
}

static gboolean
same_memory (const JmemProcStatm *a, const JmemProcStatm *b)
{
  return a->resident == b->resident && a->shared == b->shared && a->text == b->text;
}

/* How many statm files may stay open: raises the soft limit on open files
 * to the hard one (systemd's default soft limit is 1024, its hard one far
 * higher, and it asks programs that need more to raise it themselves). */
static guint
max_fds (JmemSampler *s)
{
  struct rlimit limit;

  if (s->max_fds > 0)
    return s->max_fds;
  s->max_fds = 1;
  if (getrlimit (RLIMIT_NOFILE, &limit) < 0)
    return s->max_fds;
  if (limit.rlim_cur < limit.rlim_max)
    {
      rlim_t soft = limit.rlim_cur;

      limit.rlim_cur = MIN (limit.rlim_max, (rlim_t) 1 << 20);
      if (setrlimit (RLIMIT_NOFILE, &limit) < 0)
        limit.rlim_cur = soft;
    }
  if (limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur > FDS_SPARED)
    s->max_fds = (guint) MIN (limit.rlim_cur - FDS_SPARED, (rlim_t) G_MAXINT);
  return s->max_fds;
}

/* Reads statm into ctx->read_buf. On the live system the file stays open
 * and is read again from its start at the next sample: one system call
 * instead of an open, a read and a close, and a descriptor that keeps
 * naming the process it was opened for (the kernel answers ESRCH once that
 * process is gone, even when its PID was given to a new one). A tree is
 * read as every other file of it. */
static gboolean
read_statm (JmemSampler        *s,
            JmemCollectContext *ctx,
            Entry              *e,
            gint64              pid,
            GError            **error)
{
  char name[40];
  ssize_t n;

  g_snprintf (name, sizeof name, "%" G_GINT64_FORMAT "/statm", pid);
  if (!jmem_root_is_live (ctx->files))
    return jmem_root_read_record_at (ctx->files, ctx->proc_fd, "/proc", name, STATM_MAX_BYTES,
                                     ctx->read_buf, error);
  if (e->statm_fd < 0 && s->n_fds < max_fds (s))
    {
      e->statm_fd = openat (ctx->proc_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
      if (e->statm_fd >= 0)
        s->n_fds++;
    }
  if (e->statm_fd < 0)
    return jmem_root_read_record_at (ctx->files, ctx->proc_fd, "/proc", name, STATM_MAX_BYTES,
                                     ctx->read_buf, error);
  g_byte_array_set_size (ctx->read_buf, STATM_MAX_BYTES);
  do
    n = pread (e->statm_fd, ctx->read_buf->data, STATM_MAX_BYTES - 1, 0);
  while (n < 0 && errno == EINTR);
  if (n < 0)
    {
      int errsv = errno;

      g_byte_array_set_size (ctx->read_buf, 0);
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errsv), "cannot read /proc/%s: %s",
                   name, g_strerror (errsv));
      return FALSE;
    }
  g_byte_array_set_size (ctx->read_buf, (guint) n);
  return TRUE;
}

static void
forget (JmemSampler *s, gint64 pid)
{
  Entry *e = g_hash_table_lookup (s->entries, GINT_TO_POINTER ((gint) pid));

  if (e != NULL && e->statm_fd >= 0)
    s->n_fds--;
  g_hash_table_remove (s->entries, GINT_TO_POINTER ((gint) pid));
}

JmemSamplerRead
jmem_sampler_reuse (JmemSampler        *s,
                    JmemCollectContext *ctx,
                    JmemProcess        *p)
{
  g_autoptr(GError) error = NULL;
  Entry *e = g_hash_table_lookup (s->entries, GINT_TO_POINTER ((gint) p->pid));
  gboolean have_statm, held;
  JmemProcStatm statm;

  if (e == NULL)
    {
      e = g_new0 (Entry, 1);
      e->statm_fd = -1;
      g_hash_table_insert (s->entries, GINT_TO_POINTER ((gint) p->pid), e);
    }
  e->seen = s->index;

  held = e->statm_fd >= 0;
  have_statm = ctx->proc_fd >= 0 && read_statm (s, ctx, e, p->pid, &error) &&
               jmem_proc_statm_parse ((const char *) ctx->read_buf->data, ctx->read_buf->len,
                                      &statm, NULL);
  /* ESRCH or ENOENT: it exited since /proc was listed; through a file held
   * open since an earlier sample, the PID may name a new process by now,
   * which is met afresh. A tree may simply hold no statm. */
  if (error != NULL && jmem_root_is_live (ctx->files) &&
      (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND) ||
       g_error_matches (error, G_IO_ERROR, G_IO_ERROR_FAILED)))
    {
      forget (s, p->pid);
      if (held)
        return jmem_sampler_reuse (s, ctx, p);
      return JMEM_SAMPLER_EXITED;
    }
  e->have_statm = have_statm;
  if (have_statm)
    e->statm = statm;

  if (e->kept == NULL || !have_statm || !e->have_read_statm ||
      !same_memory (&statm, &e->read_statm) || due (s, e, p->pid))
    return JMEM_SAMPLER_READ_WHOLE;

  /* The PID is the directory's; the rest is what was read before. */
  g_free (p->name);
  g_free (p->user);
  g_free (p->container_runtime);
  g_free (p->container_id);
  g_free (p->unit);
  g_free (p->cmdline);
  *p = *e->kept;
  p->name = g_strdup (e->kept->name);
  p->user = g_strdup (e->kept->user);
  p->container_runtime = g_strdup (e->kept->container_runtime);
  p->container_id = g_strdup (e->kept->container_id);
  p->unit = g_strdup (e->kept->unit);
  p->cmdline = g_strdup (e->kept->cmdline);
  e->age++;
  p->pss_age_samples = (gint) MIN (e->age, (guint) G_MAXINT);
  if (e->why != 0)
    g_hash_table_insert (ctx->pss_why, GINT_TO_POINTER ((gint) p->pid), GINT_TO_POINTER (e->why));
  s->n_kept++;
  return JMEM_SAMPLER_KEPT;
}

void
jmem_sampler_keep (JmemSampler        *s,
                   JmemCollectContext *ctx,
                   JmemProcess        *p)
{
  Entry *e = g_hash_table_lookup (s->entries, GINT_TO_POINTER ((gint) p->pid));

  s->n_read++;
  p->pss_age_samples = 0;
  if (e == NULL)
    return;
  g_clear_pointer (&e->kept, jmem_process_free);
  e->kept = jmem_process_copy (p);
  e->why = GPOINTER_TO_INT (g_hash_table_lookup (ctx->pss_why, GINT_TO_POINTER ((gint) p->pid)));
  e->age = 0;
  e->read_statm = e->statm;
  e->have_read_statm = e->have_statm;
}
