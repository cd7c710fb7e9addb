/* SPDX-License-Identifier: GPL-2.0-or-later */
/* /proc/PID files (status, stat, smaps_rollup, cgroup, cmdline, statm) on
 * real captures, kernel threads, nested PID namespaces and hostile names. */
#include "jmem-error.h"
#include "jmem-file.h"
#include "jmem-glib-compat.h"
#include "jmem-procfs.h"

#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-test.h"

static char *
load (const char *name, gsize *len)
{
  g_autofree char *path = jmem_test_fixture ("procfs", name, NULL);
  g_autoptr(GError) error = NULL;
  char *data = NULL;

  jmem_file_read_capped (path, 1 << 20, &data, len, &error);
  g_assert_no_error (error);
  return data;
}

static JmemProcStatus *
status_fixture (const char *name)
{
  gsize len;
  g_autofree char *data = load (name, &len);
  g_autoptr(GError) error = NULL;
  JmemProcStatus *st = jmem_proc_status_parse (data, len, &error);

  g_assert_no_error (error);
  g_assert_nonnull (st);
  return st;
}

static void
test_status_real (void)
{
  g_autoptr(JmemProcStatus) st = status_fixture ("status.this-machine-bash.txt");

  g_assert_cmpstr (st->name, ==, "bash");
  g_assert_cmpint (st->state, ==, 'S');
  g_assert_cmpint (st->pid, ==, 3757);
  g_assert_cmpint (st->ppid, ==, 3756);
  g_assert_cmpint (st->uid, ==, 0);
  g_assert_cmpint (st->vm_rss_kib, ==, 4304);
  g_assert_cmpint (st->rss_anon_kib, ==, 1208);
  g_assert_cmpint (st->rss_file_kib, ==, 3096);
  g_assert_cmpint (st->rss_shmem_kib, ==, 0);
  g_assert_cmpint (st->vm_swap_kib, ==, 0);
  g_assert_cmpint (st->threads, ==, 1);
  g_assert_cmpuint (st->ns_pid_levels, ==, 1);
}

/* NSpid names a PID per namespace, from /proc's down to the process's:
 * more than one is a process in a namespace below the reader's. */
static void
test_status_nested_pid_namespace (void)
{
  static const char data[] = "Name:\tpython3\nState:\tS (sleeping)\nPid:\t4242\n"
                             "NSpid:\t4242\t17\t1\nVmRSS:\t  1024 kB\n";
  g_autoptr(JmemProcStatus) st = jmem_proc_status_parse (data, sizeof data - 1, NULL);
  g_autoptr(JmemProcStatus) none = jmem_proc_status_parse ("Name:\tx\n", 8, NULL);

  g_assert_nonnull (st);
  g_assert_cmpuint (st->ns_pid_levels, ==, 3);
  g_assert_cmpint (st->vm_rss_kib, ==, 1024);
  g_assert_nonnull (none);
  g_assert_cmpuint (none->ns_pid_levels, ==, 0);
}

static void
test_status_kthread (void)
{
  g_autoptr(JmemProcStatus) st = status_fixture ("status.this-machine-kthread.txt");

  g_assert_cmpstr (st->name, ==, "kworker/0:0H-events_highpri");
  g_assert_cmpint (st->state, ==, 'I');
  g_assert_cmpint (st->pid, ==, 10);
  g_assert_cmpint (st->ppid, ==, 2);
  g_assert_cmpint (st->vm_rss_kib, ==, -1);
  g_assert_cmpint (st->rss_anon_kib, ==, -1);
  g_assert_cmpint (st->vm_swap_kib, ==, -1);
  g_assert_cmpint (st->threads, ==, 1);
}

static void
test_status_name_newline (void)
{
  g_autoptr(JmemProcStatus) st = status_fixture ("status.hostile-name-newline.txt");

  /* The forged "Uid: 0" stays inside the name; the real uid is read. */
  g_assert_cmpstr (st->name, ==, "evil\nUid:\t0");
  g_assert_cmpint (st->uid, ==, 1000);
  g_assert_cmpint (st->pid, ==, 4242);
  g_assert_cmpint (st->vm_rss_kib, ==, 10240);
  g_assert_cmpint (st->rss_shmem_kib, ==, 144);
  g_assert_cmpint (st->vm_swap_kib, ==, 12);
  g_assert_cmpint (st->threads, ==, 3);
}

static void
test_status_name_invalid_utf8 (void)
{
  g_autoptr(JmemProcStatus) st = status_fixture ("status.hostile-name-invalid-utf8.txt");

  g_assert_true (g_utf8_validate (st->name, -1, NULL));
  g_assert_cmpstr (st->name, ==, "\357\277\275\357\277\275 ab\\c\357\277\275");
  g_assert_cmpint (st->uid, ==, 1000);
}

static void
test_status_truncated (void)
{
  g_autoptr(JmemProcStatus) st = status_fixture ("status.hostile-truncated.txt");

  g_assert_cmpstr (st->name, ==, "worker");
  g_assert_cmpint (st->pid, ==, 4242);
  /* "VmRSS:\t  10" lost its unit: not trusted. */
  g_assert_cmpint (st->vm_rss_kib, ==, -1);
  g_assert_cmpint (st->rss_anon_kib, ==, 4096);
  g_assert_cmpint (st->vm_swap_kib, ==, -1);
  g_assert_cmpint (st->threads, ==, -1);
}

static void
test_status_huge (void)
{
  g_autoptr(JmemProcStatus) st = status_fixture ("status.hostile-huge.txt");

  g_assert_cmpstr (st->name, ==, "big");
  g_assert_cmpint (st->state, ==, 'R');
  g_assert_cmpint (st->pid, ==, -1);
  g_assert_cmpint (st->ppid, ==, -1);
  g_assert_cmpint (st->uid, ==, -1);
  g_assert_cmpint (st->vm_rss_kib, ==, -1);
  g_assert_cmpint (st->threads, ==, 1);
}

static void
test_status_garbage (void)
{
  const char *files[] = { "status.hostile-garbage.bin", "status.hostile-empty.txt" };

  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      gsize len;
      g_autofree char *data = load (files[i], &len);
      g_autoptr(GError) error = NULL;
      JmemProcStatus *st = jmem_proc_status_parse (data, len, &error);

      g_assert_null (st);
      g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
    }
}

static void
test_smaps_rollup (void)
{
  JmemSmapsRollup r;
  gsize len;
  g_autofree char *data = load ("smaps_rollup.reference.txt", &len);
  g_autofree char *real = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_true (jmem_smaps_rollup_parse (data, len, &r, &error));
  g_assert_no_error (error);
  g_assert_cmpint (r.rss_kib, ==, 52344);
  g_assert_cmpint (r.pss_kib, ==, 31007);
  g_assert_cmpint (r.pss_anon_kib, ==, 19980);
  g_assert_cmpint (r.pss_file_kib, ==, 10911);
  g_assert_cmpint (r.pss_shmem_kib, ==, 116);
  g_assert_cmpint (r.swap_kib, ==, 2048);
  g_assert_cmpint (r.swap_pss_kib, ==, 1536);

  real = load ("smaps_rollup.this-machine-bash.txt", &len);
  g_assert_true (jmem_smaps_rollup_parse (real, len, &r, &error));
  g_assert_cmpint (r.rss_kib, ==, 4304);
  g_assert_cmpint (r.pss_kib, ==, 1062);
  g_assert_cmpint (r.pss_anon_kib, ==, 705);
  g_assert_cmpint (r.pss_file_kib, ==, 356);
  g_assert_cmpint (r.swap_pss_kib, ==, 0);
}

static void
test_smaps_rollup_hostile (void)
{
  JmemSmapsRollup r;
  gsize len;
  g_autofree char *cut = load ("smaps_rollup.hostile-truncated.txt", &len);
  g_autoptr(GError) error = NULL;

  /* Pss cut short: unknown, never a smaller number. */
  g_assert_false (jmem_smaps_rollup_parse (cut, len, &r, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE);
  g_assert_cmpint (r.rss_kib, ==, 52344);
  g_assert_cmpint (r.pss_kib, ==, -1);
  g_clear_error (&error);

  g_assert_false (jmem_smaps_rollup_parse ("", 0, &r, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE);
  g_assert_cmpint (r.swap_kib, ==, -1);
}

typedef struct {
  const char *file;
  const char *runtime;
  const char *id;
  const char *cgroup;
} CgroupCase;

static void
test_cgroup (void)
{
  static const char hex[] = "3f1c0ab5d2e4f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5";
  static const char hex2[] = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a29180716253443526170819aabbccd";
  const CgroupCase cases[] = {
    { "cgroup.reference-docker-v2.txt", "docker", hex, NULL },
    { "cgroup.reference-docker-v1.txt", "docker", hex, NULL },
    { "cgroup.reference-containerd-k8s-v2.txt", "containerd", hex, NULL },
    { "cgroup.reference-containerd-systemd-driver.txt", "containerd", hex, NULL },
    { "cgroup.reference-crio-v2.txt", "crio", hex2, NULL },
    { "cgroup.reference-podman-v2.txt", "podman", hex2, NULL },
    { "cgroup.reference-kubepods-v1.txt", "kubepods", hex, NULL },
    { "cgroup.reference-none-v2.txt", NULL, NULL, "/user.slice/user-1000.slice/session-3.scope" },
    { "cgroup.this-machine-v1-hybrid.txt", NULL, NULL, "/" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize len;
      g_autofree char *data = load (cases[i].file, &len);
      g_autoptr(GError) error = NULL;
      JmemCgroupInfo info;

      g_test_message ("%s", cases[i].file);
      g_assert_true (jmem_cgroup_parse (data, len, &info, &error));
      g_assert_no_error (error);
      g_assert_cmpstr (info.runtime, ==, cases[i].runtime);
      g_assert_cmpstr (info.id, ==, cases[i].id);
      g_assert_nonnull (info.cgroup);
      if (cases[i].cgroup != NULL)
        g_assert_cmpstr (info.cgroup, ==, cases[i].cgroup);
      if (info.id != NULL)
        g_assert_nonnull (strstr (info.cgroup, info.id));
      jmem_cgroup_info_clear (&info);
    }
}

static void
test_cgroup_docker_v1_path (void)
{
  gsize len;
  g_autofree char *data = load ("cgroup.reference-docker-v1.txt", &len);
  JmemCgroupInfo info;

  /* The v2 line names no container; the id comes from the first v1 one. */
  g_assert_true (jmem_cgroup_parse (data, len, &info, NULL));
  g_assert_cmpstr (info.cgroup, ==,
                   "/docker/3f1c0ab5d2e4f6a7b8c9d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5");
  jmem_cgroup_info_clear (&info);
}

static void
test_cgroup_unit (void)
{
  static const struct { const char *cgroup; const char *unit; } cases[] = {
    { "/system.slice/ollama.service", "ollama.service" },
    { "/system.slice/docker.service/some/child", "docker.service" },
    { "/system.slice/gdm.service", "gdm.service" },
    /* a container's scope, a login session, a user's own service, the root */
    { "/system.slice/docker-3f4e8b2a9c1d.scope", NULL },
    { "/user.slice/user-1000.slice/session-3.scope", NULL },
    { "/user.slice/user-1000.slice/user@1000.service/app.slice/tracker-miner-fs-3.service", NULL },
    { "/", NULL },
    { "/system.slice/", NULL },
    { "/system.slice/.service", NULL },
    { "/system.slice/x.servicex", NULL },
    { NULL, NULL },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *unit = jmem_cgroup_unit (cases[i].cgroup);

      g_assert_cmpstr (unit, ==, cases[i].unit);
    }
  {
    /* a name that is not UTF-8 comes out valid */
    g_autofree char *unit = jmem_cgroup_unit ("/system.slice/a\xff.service");

    g_assert_true (g_utf8_validate (unit, -1, NULL));
    g_assert_true (g_str_has_suffix (unit, ".service"));
  }
}

static void
test_cgroup_hostile (void)
{
  gsize len;
  g_autofree char *look = load ("cgroup.hostile-lookalikes.txt", &len);
  g_autofree char *garbage = NULL;
  g_autoptr(GError) error = NULL;
  JmemCgroupInfo info;

  g_assert_true (jmem_cgroup_parse (look, len, &info, &error));
  g_assert_null (info.runtime);
  g_assert_null (info.id);
  g_assert_true (g_utf8_validate (info.cgroup, -1, NULL));
  jmem_cgroup_info_clear (&info);

  garbage = load ("cgroup.hostile-garbage.bin", &len);
  if (jmem_cgroup_parse (garbage, len, &info, &error))
    {
      g_assert_null (info.id);
      g_assert_true (g_utf8_validate (info.cgroup, -1, NULL));
      jmem_cgroup_info_clear (&info);
    }
  else
    g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_clear_error (&error);

  g_assert_false (jmem_cgroup_parse ("", 0, &info, &error));
  g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  g_assert_null (info.cgroup);
  g_clear_error (&error);

  /* A buffer that ends right after the second colon, with no NUL behind it
   * (found by fuzzing: the path check read one byte too far). */
  {
    g_autofree char *cut = g_memdup2 ("12:pids:", 8);

    g_assert_false (jmem_cgroup_parse (cut, 8, &info, &error));
    g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
  }
}

static void
test_cmdline (void)
{
  const struct {
    const char *file;
    const char *expected;
  } cases[] = {
    { "cmdline.this-machine-bash.bin", "bash /dev/fd/3" },
    { "cmdline.this-machine-kthread.bin", "" },
    { "cmdline.reference-python.bin", "python3 -m vllm.entrypoints.openai.api_server --port 8000" },
    { "cmdline.hostile-invalid-utf8.bin", "/usr/bin/x\357\277\275\357\277\275 --name=a\nb" },
    { "cmdline.hostile-no-trailing-nul.bin", "setproctitle style: worker 3" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      gsize len;
      g_autofree char *data = load (cases[i].file, &len);
      g_autofree char *cmd = jmem_cmdline_parse (data, len);

      g_assert_cmpstr (cmd, ==, cases[i].expected);
      g_assert_true (g_utf8_validate (cmd, -1, NULL));
    }
}

static void
stat_fixture (const char *name, JmemProcStat *st)
{
  gsize len;
  g_autofree char *data = load (name, &len);
  g_autoptr(GError) error = NULL;

  g_assert_true (jmem_proc_stat_parse (data, len, st, &error));
  g_assert_no_error (error);
}

static void
test_stat_real (void)
{
  JmemProcStat st;

  stat_fixture ("stat.this-machine-cat.txt", &st);
  g_assert_cmpint (st.pid, ==, 16910);
  g_assert_cmpint (st.state, ==, 'R');
  g_assert_cmpint (st.ppid, ==, 16907);
  g_assert_cmpuint (st.flags, ==, 4194304);
  g_assert_false (st.flags & JMEM_PROC_PF_KTHREAD);
  g_assert_cmpint (st.start_time_ticks, ==, 129493);

  stat_fixture ("stat.this-machine-kthread.txt", &st);
  g_assert_cmpint (st.pid, ==, 10);
  g_assert_cmpint (st.state, ==, 'I');
  g_assert_cmpint (st.ppid, ==, 2);
  g_assert_true (st.flags & JMEM_PROC_PF_KTHREAD);
  g_assert_cmpint (st.start_time_ticks, ==, 25);
}

/* Names that hold ")", spaces, "(" and newlines: the fields are those after
 * the last ")", never ones the name forged. */
static void
test_stat_hostile_comm (void)
{
  JmemProcStat st;

  stat_fixture ("stat.hostile-comm-parens.txt", &st);
  g_assert_cmpint (st.pid, ==, 4242);
  g_assert_cmpint (st.state, ==, 'S');
  g_assert_cmpint (st.ppid, ==, 1);
  g_assert_false (st.flags & JMEM_PROC_PF_KTHREAD);
  g_assert_cmpint (st.start_time_ticks, ==, 123456);

  stat_fixture ("stat.hostile-comm-newline.txt", &st);
  g_assert_cmpint (st.pid, ==, 77);
  g_assert_cmpint (st.state, ==, 'S');
  g_assert_cmpint (st.ppid, ==, 9);
  g_assert_cmpint (st.start_time_ticks, ==, 5);

  stat_fixture ("stat.hostile-comm-space.txt", &st);
  g_assert_cmpint (st.start_time_ticks, ==, G_GINT64_CONSTANT (999999999999));
}

/* Truncated, overflowing or unterminated: refused, every field unknown. */
static void
test_stat_malformed (void)
{
  static const char *const files[] = {
    "stat.hostile-truncated.txt", "stat.hostile-huge.txt", "stat.hostile-no-close.txt",
    "status.this-machine-bash.txt", "status.hostile-garbage.bin", "status.hostile-empty.txt",
  };
  static const char *const texts[] = {
    "(x) S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5",  /* no PID */
    "1 (x) S -1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0",  /* negative PPID */
    "1 (x)S 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0",  /* no space after the name */
    "1 (x) SS 1 1 1 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5 0",  /* a state of two letters */
  };

  for (gsize i = 0; i < G_N_ELEMENTS (files) + G_N_ELEMENTS (texts); i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *data = NULL;
      gsize len;
      JmemProcStat st;

      if (i < G_N_ELEMENTS (files))
        data = load (files[i], &len);
      else
        {
          data = g_strdup (texts[i - G_N_ELEMENTS (files)]);
          len = strlen (data);
        }
      if (jmem_proc_stat_parse (data, len, &st, &error))
        g_error ("case %" G_GSIZE_FORMAT " parsed", i);
      g_assert_error (error, JMEM_ERROR, JMEM_ERROR_FAILED);
      g_assert_cmpint (st.pid, ==, -1);
      g_assert_cmpint (st.start_time_ticks, ==, -1);
      g_assert_cmpuint (st.flags, ==, 0);
    }
}

/* The test process knows its own pid, uid and argv[0]. */
/* statm: the kernel's seven numbers; the sampler compares resident, shared
 * and text of two reads, so a misparse would keep a stale PSS. A page of
 * the process's own, touched, moves resident. */
static void
test_statm (void)
{
  static const char *const bad[] = {
    "", "\n", "1 2 3 4 5 6", "1 2 3 4 5 6 7 8", "1 2 3 4 5 6 x", "1  2 3 4 5 6 7",
    "1 2 3 4 5 6 7 ", "-1 2 3 4 5 6 7", "99999999999999999999 2 3 4 5 6 7", "1 2 3 4 5 6 7\n\n",
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *data = NULL;
  JmemProcStatm before, after;
  gsize len, page = (gsize) sysconf (_SC_PAGESIZE), n = 64;
  volatile char *touched;

  g_assert_true (jmem_proc_statm_parse ("4243 1030 664 212 0 430 0\n", 26, &before, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (before.size, ==, 4243);
  g_assert_cmpuint (before.resident, ==, 1030);
  g_assert_cmpuint (before.shared, ==, 664);
  g_assert_cmpuint (before.text, ==, 212);
  g_assert_cmpuint (before.data, ==, 430);

  for (gsize i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autoptr(GError) bad_error = NULL;

      if (jmem_proc_statm_parse (bad[i], strlen (bad[i]), &after, &bad_error))
        g_error ("\"%s\" parsed", bad[i]);
      g_assert_error (bad_error, JMEM_ERROR, JMEM_ERROR_FAILED);
      g_assert_cmpuint (after.resident, ==, 0);
    }

  jmem_file_read_capped ("/proc/self/statm", 4096, &data, &len, &error);
  g_assert_no_error (error);
  g_assert_true (jmem_proc_statm_parse (data, len, &before, &error));
  g_assert_cmpuint (before.resident, >, 0);
  g_clear_pointer (&data, g_free);
  touched = g_malloc (n * page);
  for (gsize i = 0; i < n * page; i += page)
    touched[i] = 1;
  jmem_file_read_capped ("/proc/self/statm", 4096, &data, &len, &error);
  g_assert_no_error (error);
  g_assert_true (jmem_proc_statm_parse (data, len, &after, &error));
  g_assert_cmpuint (after.resident, >=, before.resident + n / 2);
  g_free ((char *) touched);
}

static void
test_live_self (void)
{
  g_autofree char *data = NULL;
  g_autofree char *cmd = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(JmemProcStatus) st = NULL;
  JmemSmapsRollup r;
  JmemCgroupInfo info;
  gsize len;

  /* A hostile name of our own: the kernel escapes it, we must undo that. */
  g_assert_cmpint (prctl (PR_SET_NAME, "ev\nil\\x\377", 0, 0, 0), ==, 0);
  jmem_file_read_capped ("/proc/self/status", 1 << 20, &data, &len, &error);
  g_assert_no_error (error);
  st = jmem_proc_status_parse (data, len, &error);
  g_assert_no_error (error);
  g_assert_cmpint (st->pid, ==, getpid ());
  g_assert_cmpint (st->ppid, ==, getppid ());
  g_assert_cmpint (st->uid, ==, getuid ());
  g_assert_cmpint (st->state, ==, 'R');
  g_assert_cmpint (st->vm_rss_kib, >, 0);
  g_assert_cmpint (st->threads, >=, 1);
  g_assert_cmpstr (st->name, ==, "ev\nil\\x\357\277\275");
  g_clear_pointer (&data, g_free);

  /* The same name in stat, where it is not escaped at all. qemu-user (the
   * cross build's exe wrapper) makes up its own /proc/self/stat: there the
   * parent's, which the kernel writes, stands in. */
  {
    JmemProcStat pst;
    gboolean emulated = g_getenv ("MESON_EXE_WRAPPER") != NULL;
    g_autofree char *path = emulated ? g_strdup_printf ("/proc/%d/stat", (int) getppid ())
                                     : g_strdup ("/proc/self/stat");

    jmem_file_read_capped (path, 1 << 20, &data, &len, &error);
    g_assert_no_error (error);
    g_assert_true (jmem_proc_stat_parse (data, len, &pst, &error));
    g_assert_no_error (error);
    g_assert_cmpint (pst.pid, ==, emulated ? getppid () : getpid ());
    if (!emulated)
      g_assert_cmpint (pst.ppid, ==, getppid ());
    g_assert_cmpint (pst.start_time_ticks, >, 0);
    g_assert_false (pst.flags & JMEM_PROC_PF_KTHREAD);
    g_clear_pointer (&data, g_free);
  }

  jmem_file_read_capped ("/proc/self/cmdline", 1 << 20, &data, &len, &error);
  g_assert_no_error (error);
  cmd = jmem_cmdline_parse (data, len);
  g_assert_nonnull (strstr (cmd, "test-procfs"));
  g_clear_pointer (&data, g_free);

  if (jmem_file_read_capped ("/proc/self/smaps_rollup", 1 << 20, &data, &len, NULL))
    {
      g_assert_true (jmem_smaps_rollup_parse (data, len, &r, &error));
      g_assert_no_error (error);
      g_assert_cmpint (r.pss_kib, >, 0);
      g_assert_cmpint (r.pss_kib, <=, r.rss_kib);
      g_clear_pointer (&data, g_free);
    }

  jmem_file_read_capped ("/proc/self/cgroup", 1 << 20, &data, &len, &error);
  g_assert_no_error (error);
  g_assert_true (jmem_cgroup_parse (data, len, &info, &error));
  g_assert_no_error (error);
  g_assert_nonnull (info.cgroup);
  jmem_cgroup_info_clear (&info);
}

static void
own_process_group (gpointer data)
{
  setpgid (0, 0);
}

/* Lines and words of @data: what a file's counters changing between two
 * reads leaves alone, and what a read cut short would not. */
static char *
shape_of (const char *data, gsize len)
{
  guint lines = 0, words = 0;
  gboolean in_word = FALSE;

  for (gsize i = 0; i < len; i++)
    {
      gboolean space = g_ascii_isspace (data[i]);

      lines += data[i] == '\n';
      words += !space && !in_word;
      in_word = !space;
    }
  return g_strdup_printf ("%u lines, %u words, ends %s", lines, words,
                          len > 0 && data[len - 1] == '\n' ? "with a newline" : "without");
}

/* A short read is the end of these files: what jmem_file_read_record_at()
 * returns is the whole file, for a command line three times the read size
 * too. The process is a shell waiting for its child: its command line and
 * cgroup are read back byte for byte; status, stat and smaps_rollup hold
 * counters that may move between the reads, so there their shape is. */
static void
test_live_record_reads (void)
{
  const char *files[] = { "status", "stat", "cgroup", "smaps_rollup", "cmdline" };
  g_autofree char *long_arg = g_strnfill (50000, 'x');
  const char *argv[] = { "/bin/sh", "-c", "sleep 60", long_arg, NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  GPid pid;
  int dirfd;

  /* Its own process group, so that the shell's sleep goes with it. */
  g_assert_true (g_spawn_async (NULL, (char **) argv, NULL,
                                G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                                G_SPAWN_STDERR_TO_DEV_NULL,
                                own_process_group, NULL, &pid, &error));
  g_assert_no_error (error);
  g_usleep (200 * 1000);
  dir = g_strdup_printf ("/proc/%d", (int) pid);
  dirfd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  g_assert_cmpint (dirfd, >=, 0);
  for (gsize i = 0; i < G_N_ELEMENTS (files); i++)
    {
      g_autoptr(GByteArray) record = g_byte_array_new ();
      g_autofree char *path = g_build_filename (dir, files[i], NULL);
      g_autofree char *whole = NULL;
      gsize len = 0;

      if (!jmem_file_read_capped (path, 1 << 20, &whole, &len, NULL))
        continue;  /* smaps_rollup of another user's process */
      g_assert_true (jmem_file_read_record_at (dirfd, files[i], 1 << 20, record, &error));
      g_assert_no_error (error);
      if (g_str_equal (files[i], "cmdline") || g_str_equal (files[i], "cgroup"))
        g_assert_cmpmem (record->data, record->len, whole, len);
      else
        {
          g_autofree char *got = shape_of ((const char *) record->data, record->len);
          g_autofree char *want = shape_of (whole, len);

          g_assert_cmpstr (got, ==, want);
        }
    }
  close (dirfd);
  kill (-pid, SIGKILL);
  waitpid (pid, NULL, 0);
  g_spawn_close_pid (pid);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/procfs/status/real", test_status_real);
  g_test_add_func ("/procfs/status/kernel-thread", test_status_kthread);
  g_test_add_func ("/procfs/status/nested-pid-namespace", test_status_nested_pid_namespace);
  g_test_add_func ("/procfs/status/name-newline", test_status_name_newline);
  g_test_add_func ("/procfs/status/name-invalid-utf8", test_status_name_invalid_utf8);
  g_test_add_func ("/procfs/status/truncated", test_status_truncated);
  g_test_add_func ("/procfs/status/huge", test_status_huge);
  g_test_add_func ("/procfs/status/garbage", test_status_garbage);
  g_test_add_func ("/procfs/stat/real", test_stat_real);
  g_test_add_func ("/procfs/stat/hostile-comm", test_stat_hostile_comm);
  g_test_add_func ("/procfs/stat/malformed", test_stat_malformed);
  g_test_add_func ("/procfs/smaps-rollup/values", test_smaps_rollup);
  g_test_add_func ("/procfs/smaps-rollup/hostile", test_smaps_rollup_hostile);
  g_test_add_func ("/procfs/cgroup/runtimes", test_cgroup);
  g_test_add_func ("/procfs/cgroup/docker-v1-path", test_cgroup_docker_v1_path);
  g_test_add_func ("/procfs/cgroup/hostile", test_cgroup_hostile);
  g_test_add_func ("/procfs/cgroup/unit", test_cgroup_unit);
  g_test_add_func ("/procfs/cmdline", test_cmdline);
  g_test_add_func ("/procfs/statm", test_statm);
  g_test_add_func ("/procfs/live-self", test_live_self);
  g_test_add_func ("/procfs/live-record-reads", test_live_record_reads);
  return g_test_run ();
}
