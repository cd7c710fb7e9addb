/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The programs jmem runs (nvidia-smi, nvpmodel, tegrastats): where they are
 * looked for, as root and as a plain user, and what their output may claim.
 * Stand-ins are found through PATH only by a plain user: as root, the test
 * runs jmem as TEST_USER with setpriv, the way an unprivileged caller runs
 * it, rather than bind-mounting over the system's directories (which would
 * need a mount namespace and a file to mount over, and would test nothing
 * the user path does not). */
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <pwd.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "jmem-test.h"
#include "test-account.h"

/* The prefix of this program's own account (named per run: test-account.h). */
#define TEST_USER "jmem-test-programs"

/* The uid jmem runs as in the user tests: TEST_USER when root (created on
 * first use), else ourselves. FALSE (test skipped) when neither works. */
static gboolean
test_user (uid_t *uid, gid_t *gid)
{
  if (geteuid () != 0)
    {
      *uid = geteuid ();
      *gid = getegid ();
      return TRUE;
    }
  if (!test_account_get (TEST_USER, NULL, uid, gid))
    {
      g_test_skip ("cannot create " TEST_USER);
      return FALSE;
    }
  return TRUE;
}

/* Set by a test for run_jmem(): the directory that is /var/lib for jmem. */
static const char *var_lib;

/* `jmem ARGS` in @cwd with exactly @envp; as @uid through setpriv when that
 * is not ourselves. Stdout is parsed as JSON when it exits 0 from --json. */
static void
run_jmem (const char *cwd, const char * const *envp, uid_t uid, gid_t gid,
          const char * const *args, JmemTestRun *r)
{
  g_autoptr(GSubprocessLauncher) launcher = jmem_test_launcher (NULL);
  g_autoptr(GPtrArray) prefix = g_ptr_array_new_with_free_func (g_free);
  const char *empty[] = { NULL };

  if (var_lib != NULL)
    {
      /* A private mount namespace in which @var_lib is /var/lib: files
       * jmem reads at fixed paths, and nothing of the host's changes. */
      const char *in_namespace[] = { "unshare", "--mount", "--propagation=private", "/bin/sh", "-c",
                                     "mount --bind \"$0\" /var/lib && exec \"$@\"", var_lib, NULL };

      for (guint i = 0; in_namespace[i] != NULL; i++)
        g_ptr_array_add (prefix, g_strdup (in_namespace[i]));
    }
  if (uid != geteuid ())
    {
      g_autofree char *setpriv = g_find_program_in_path ("setpriv");

      g_assert_nonnull (setpriv);
      g_ptr_array_add (prefix, g_steal_pointer (&setpriv));
      g_ptr_array_add (prefix, g_strdup_printf ("--reuid=%u", (unsigned) uid));
      g_ptr_array_add (prefix, g_strdup_printf ("--regid=%u", (unsigned) gid));
      g_ptr_array_add (prefix, g_strdup ("--clear-groups"));
    }
  g_ptr_array_add (prefix, NULL);

  g_subprocess_launcher_set_environ (launcher, (char **) (envp != NULL ? envp : empty));
  g_subprocess_launcher_set_cwd (launcher, cwd);
  jmem_test_run_jmem_full (r, launcher, (const char * const *) prefix->pdata, args);
  if (r->status != 0)
    g_printerr ("%s", r->err);
  if (r->status == 0 && g_strv_contains (args, "--json"))
    jmem_test_run_parse_json (r);
}

static JsonArray *
array_at (JsonNode *root, const char *member, const char *sub)
{
  JsonObject *o = json_object_get_object_member (json_node_get_object (root), member);

  return json_object_get_array_member (o, sub);
}

static gboolean
has_warning (JsonNode *root, const char *source, const char *needle)
{
  JsonArray *a = json_object_get_array_member (json_node_get_object (root), "warnings");

  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *w = json_array_get_object_element (a, i);

      if (g_str_equal (json_object_get_string_member (w, "source"), source) &&
          strstr (json_object_get_string_member (w, "message"), needle) != NULL)
        return TRUE;
    }
  return FALSE;
}

/* A directory for stand-ins, owned by @uid so they can leave a marker. */
static char *
make_dir (uid_t uid, gid_t gid)
{
  g_autoptr(GError) error = NULL;
  char *dir = jmem_test_make_tmp ("jmem-programs-XXXXXX", &error);

  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);
  g_assert_cmpint (chown (dir, uid, gid), ==, 0);
  return dir;
}

/* DIR/SUB/nvidia-smi that appends its own path to DIR/ran and prints @body. */
static void
write_stand_in (const char *dir, const char *sub, const char *body)
{
  g_autofree char *bin = g_build_filename (dir, sub, NULL);
  g_autofree char *path = g_build_filename (bin, "nvidia-smi", NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\necho \"$0\" >> '%s/ran'\n%s", dir,
                                             body ? body : "");

  g_assert_cmpint (g_mkdir_with_parents (bin, 0755), ==, 0);
  g_assert_true (g_file_set_contents_full (path, script, -1, G_FILE_SET_CONTENTS_NONE, 0755, NULL));
}

static char *
marker (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "ran", NULL);
  char *text = NULL;

  g_file_get_contents (path, &text, NULL, NULL);
  return text;
}

static void
remove_tree (const char *dir)
{
  const char *rm[] = { "rm", "-rf", dir, NULL };

  g_assert_true (g_spawn_sync (NULL, (char **) rm, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL,
                               NULL, NULL, NULL, NULL));
}

static gboolean
system_has_nvidia_smi (void)
{
  static const char * const dirs[] = { "/usr/sbin", "/usr/bin", "/sbin", "/bin" };

  for (gsize i = 0; i < G_N_ELEMENTS (dirs); i++)
    {
      g_autofree char *p = g_build_filename (dirs[i], "nvidia-smi", NULL);

      if (g_file_test (p, G_FILE_TEST_IS_EXECUTABLE))
        return TRUE;
    }
  return FALSE;
}

static const char * const snapshot_args[] = {
  "snapshot", "--json", "--top", "1", "--no-ask-password", NULL
};

/* Root never runs a program from the current directory (PATH unset, empty
 * or relative entries) nor from a directory PATH names. */
static void
test_root_ignores_path (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *abs_path = NULL;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root");
      return;
    }
  dir = make_dir (0, 0);
  write_stand_in (dir, ".", NULL);
  write_stand_in (dir, "bin", NULL);
  abs_path = g_strdup_printf ("PATH=%s/bin:%s:/usr/bin:/bin", dir, dir);
  {
    /* env -i: no PATH at all */
    const char * const *envs[] = {
      (const char *[]) { NULL },
      (const char *[]) { "PATH=", NULL },
      (const char *[]) { "PATH=:/usr/bin:/bin", NULL },
      (const char *[]) { "PATH=.:bin:/usr/bin:/bin", NULL },
      (const char *[]) { abs_path, NULL },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (envs); i++)
      {
        g_auto(JmemTestRun) r = { 0 };
        g_autofree char *ran = NULL;

        run_jmem (dir, envs[i], 0, 0, snapshot_args, &r);
        g_assert_cmpint (r.status, ==, 0);
        ran = marker (dir);
        if (ran != NULL)
          g_printerr ("environment %s ran %s", envs[i][0] ? envs[i][0] : "(empty)", ran);
        g_assert_null (ran);
        if (!system_has_nvidia_smi ())
          {
            JsonArray *ev = array_at (r.json, "gpu", "evidence");

            g_assert_cmpstr (json_array_get_string_element (ev, 0), ==,
                             "nvidia-smi --query-gpu=index,uuid,memory.total,memory.used,memory.free,name: not installed");
          }
      }
  }
  remove_tree (dir);
}

/* A plain user's PATH is honoured, but only its absolute entries. */
static void
test_user_path (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *abs_path = NULL;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  dir = make_dir (uid, gid);
  write_stand_in (dir, ".", NULL);
  write_stand_in (dir, "bin", NULL);
  {
    const char * const *envs[] = {
      (const char *[]) { NULL },
      (const char *[]) { "PATH=", NULL },
      (const char *[]) { "PATH=/usr/bin::/bin", NULL },
      (const char *[]) { "PATH=.:bin:./bin:/usr/bin:/bin", NULL },
    };

    for (gsize i = 0; i < G_N_ELEMENTS (envs); i++)
      {
        g_auto(JmemTestRun) r = { 0 };
        g_autofree char *ran = NULL;

        run_jmem (dir, envs[i], uid, gid, snapshot_args, &r);
        g_assert_cmpint (r.status, ==, 0);
        ran = marker (dir);
        if (ran != NULL)
          g_printerr ("environment %s ran %s", envs[i][0] ? envs[i][0] : "(empty)", ran);
        g_assert_null (ran);
      }
  }
  /* an absolute entry finds the stand-in, first one first */
  abs_path = g_strdup_printf ("PATH=%s/bin:%s:/usr/bin:/bin", dir, dir);
  {
    const char *envp[] = { abs_path, NULL };
    g_autofree char *expected = g_strdup_printf ("%s/bin/nvidia-smi\n", dir);
    g_auto(JmemTestRun) r = { 0 };
    g_autofree char *ran = NULL;

    run_jmem (dir, envp, uid, gid, snapshot_args, &r);
    g_assert_cmpint (r.status, ==, 0);
    ran = marker (dir);
    g_assert_cmpstr (ran, ==, expected);
  }
  remove_tree (dir);
}

/* DIR/bin/NAME that records "NAME FIRST-ARGUMENT" in DIR/ran and prints @out. */
static void
write_recorder (const char *dir, const char *name, const char *out)
{
  g_autofree char *bin = g_build_filename (dir, "bin", NULL);
  g_autofree char *path = g_build_filename (bin, name, NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\necho \"%s ${1%%%%=*}\" >> '%s/ran'\n"
                                             "case \"$1\" in --query-gpu*|-q) printf '%s' ;; esac\n",  /* @out is printf's format */
                                             name, dir, out);

  g_assert_cmpint (g_mkdir_with_parents (bin, 0755), ==, 0);
  g_assert_true (g_file_set_contents_full (path, script, -1, G_FILE_SET_CONTENTS_NONE, 0755, NULL));
}

/* jmem watch on an nvgpu board: the first sample asks nvidia-smi and
 * nvpmodel, the later ones start no program and report the same answers. */
static void
test_watch_probes_once (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path_env = NULL;
  g_autofree char *ran = NULL;
  g_auto(GStrv) lines = NULL;
  g_auto(JmemTestRun) r = { 0 };
  const char *args[] = { "watch", "--count", "3", "--interval", "1", "--top", "1",
                         "--no-ask-password", NULL };
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  dir = make_dir (uid, gid);
  write_recorder (dir, "nvidia-smi", "0, [N/A], [N/A], [N/A], [N/A], Orin (nvgpu)\\n");
  write_recorder (dir, "nvpmodel", "NV Power Mode: MAXN\\n0\\n");
  path_env = g_strdup_printf ("PATH=%s/bin:/usr/bin:/bin", dir);
  {
    const char *envp[] = { path_env, NULL };

    run_jmem (dir, envp, uid, gid, args, &r);
  }
  g_assert_cmpint (r.status, ==, 0);
  ran = marker (dir);
  g_assert_cmpstr (ran, ==, "nvidia-smi --query-gpu\nnvidia-smi --query-compute-apps\nnvpmodel -q\n");

  g_assert_true (g_str_has_suffix (r.out, "\n"));
  r.out[strlen (r.out) - 1] = '\0';
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 3);
  for (guint i = 0; i < 3; i++)
    {
      g_autoptr(JsonNode) doc = json_from_string (lines[i], NULL);
      JsonObject *root = json_node_get_object (doc);
      JsonObject *gpu = json_object_get_object_member (root, "gpu");
      JsonArray *ev = json_object_get_array_member (gpu, "evidence");
      gboolean cached = FALSE;

      g_assert_cmpstr (json_object_get_string_member (gpu, "stack"), ==, "nvgpu");
      g_assert_cmpuint (json_array_get_length (json_object_get_array_member (gpu, "devices")), ==, 1);
      g_assert_cmpstr (json_object_get_string_member (root, "power_mode"), ==, "MAXN");
      for (guint k = 0; k < json_array_get_length (ev); k++)
        if (strstr (json_array_get_string_element (ev, k), "probed once") != NULL)
          cached = TRUE;
      g_assert_true (cached == (i > 0));
    }
  remove_tree (dir);
}

/* `jmem metrics` with @dir's stand-ins and XDG_RUNTIME_DIR=@dir/run; what
 * it started (DIR/ran, then removed). */
static char *
metrics_ran (const char *dir, uid_t uid, gid_t gid)
{
  g_autofree char *path_env = g_strdup_printf ("PATH=%s/bin:/usr/bin:/bin", dir);
  g_autofree char *xdg_env = g_strdup_printf ("XDG_RUNTIME_DIR=%s/run", dir);
  g_autofree char *ran_path = g_build_filename (dir, "ran", NULL);
  const char *envp[] = { path_env, xdg_env, NULL };
  const char *args[] = { "metrics", "--no-ask-password", NULL };
  g_auto(JmemTestRun) r = { 0 };
  char *ran;

  run_jmem (dir, envp, uid, gid, args, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "jmem_meminfo_bytes"));
  ran = marker (dir);
  g_unlink (ran_path);
  return ran;
}

/* Replaces the content of @path in place: owner and mode stay, so only the
 * content decides what the next reader does with it. */
static void
rewrite_in_place (const char *path, const char *contents)
{
  int fd = open (path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);

  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, contents, strlen (contents)), ==, (gssize) strlen (contents));
  g_assert_cmpint (close (fd), ==, 0);
}

/* Each `jmem metrics` is a new process (its timer starts one every 30 s):
 * the second finds the first one's probes in the runtime directory and
 * starts nothing; a cache file that is a link or not mode 0600 is refused
 * (and replaced), so the next run probes again. */
static void
test_metrics_probes_once_per_boot (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *run = NULL;
  g_autofree char *cache = NULL;
  g_autofree char *decoy = NULL;
  const char *probed = "nvidia-smi --query-gpu\nnvidia-smi --query-compute-apps\nnvpmodel -q\n";
  char *ran;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  dir = make_dir (uid, gid);
  run = g_build_filename (dir, "run", NULL);
  cache = g_build_filename (run, "jmem", "boot-cache", NULL);
  decoy = g_build_filename (dir, "decoy", NULL);
  g_assert_cmpint (g_mkdir (run, 0700), ==, 0);
  g_assert_cmpint (chown (run, uid, gid), ==, 0);
  write_recorder (dir, "nvidia-smi", "0, [N/A], [N/A], [N/A], [N/A], Orin (nvgpu)\\n");
  write_recorder (dir, "nvpmodel", "NV Power Mode: MAXN\\n0\\n");

  ran = metrics_ran (dir, uid, gid);
  g_assert_cmpstr (ran, ==, probed);
  g_free (ran);
  g_assert_true (g_file_test (cache, G_FILE_TEST_IS_REGULAR));
  ran = metrics_ran (dir, uid, gid);
  g_assert_null (ran);

  /* a foreign mode: refused, probed again, rewritten 0600 */
  g_assert_cmpint (g_chmod (cache, 0644), ==, 0);
  ran = metrics_ran (dir, uid, gid);
  g_assert_cmpstr (ran, ==, probed);
  g_free (ran);
  ran = metrics_ran (dir, uid, gid);
  g_assert_null (ran);

  /* a link to a file of the right mode: refused, replaced by a file */
  g_assert_cmpint (rename (cache, decoy), ==, 0);
  g_assert_cmpint (symlink (decoy, cache), ==, 0);
  ran = metrics_ran (dir, uid, gid);
  g_assert_cmpstr (ran, ==, probed);
  g_free (ran);
  g_assert_false (g_file_test (cache, G_FILE_TEST_IS_SYMLINK));

  /* the facts of another boot: discarded, probed again */
  {
    g_autofree char *text = NULL;
    g_autofree char *now = NULL;
    g_autofree char *other = NULL;
    g_auto(GStrv) halves = NULL;

    g_assert_true (g_file_get_contents ("/proc/sys/kernel/random/boot_id", &now, NULL, NULL));
    g_strstrip (now);
    g_assert_true (g_file_get_contents (cache, &text, NULL, NULL));
    halves = g_strsplit (text, now, 2);
    g_assert_cmpuint (g_strv_length (halves), ==, 2);
    other = g_strconcat (halves[0], "00000000-0000-4000-8000-000000000000", halves[1], NULL);
    rewrite_in_place (cache, other);
    ran = metrics_ran (dir, uid, gid);
    g_assert_cmpstr (ran, ==, probed);
    g_free (ran);
    ran = metrics_ran (dir, uid, gid);
    g_assert_null (ran);
  }

  /* damaged content: ignored and rewritten */
  rewrite_in_place (cache, "[jmem]\nversion=1\nboot-id=");
  ran = metrics_ran (dir, uid, gid);
  g_assert_cmpstr (ran, ==, probed);
  g_free (ran);
  ran = metrics_ran (dir, uid, gid);
  g_assert_null (ran);
  remove_tree (dir);
}

/* jmem @args as the test user with the NVML stand-in of @libdir in @mode,
 * and on its PATH an nvidia-smi printing @nvidia_smi (NULL: none
 * installed); the calls NVML recorded into *@log. The folder it ran in goes
 * to *@dir_out, or is removed when that is NULL. */
static void
run_with_nvml_args (const char *libdir, const char *mode, const char *nvidia_smi,
                    const char * const *args, JmemTestRun *r, char **log, char **dir_out)
{
  g_autofree char *dir = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *ld = g_strdup_printf ("LD_LIBRARY_PATH=%s", libdir);
  g_autofree char *mode_env = g_strdup_printf ("JMEM_NVML_STUB=%s", mode);
  g_autofree char *log_env = NULL;
  g_autofree char *path = NULL;
  uid_t uid;
  gid_t gid;

  g_assert_true (test_user (&uid, &gid));
  dir = make_dir (uid, gid);
  log_path = g_build_filename (dir, "nvml-calls", NULL);
  log_env = g_strdup_printf ("JMEM_NVML_STUB_LOG=%s", log_path);
  if (nvidia_smi != NULL)
    {
      g_autofree char *body = g_strdup_printf ("printf '%s'\n", nvidia_smi);

      write_stand_in (dir, "bin", body);
    }
  path = g_strdup_printf ("PATH=%s/bin:/usr/bin:/bin", dir);
  {
    const char *envp[] = { ld, mode_env, log_env, path, NULL };

    run_jmem (dir, envp, uid, gid, args, r);
  }
  g_assert_cmpint (r->status, ==, 0);
  *log = NULL;
  g_file_get_contents (log_path, log, NULL, NULL);
  if (dir_out != NULL)
    *dir_out = g_steal_pointer (&dir);
  else
    remove_tree (dir);
}

/* `jmem snapshot --json` with the NVML stand-in and nvidia-smi. */
static void
run_with_nvml_and_smi (const char *libdir, const char *mode, const char *nvidia_smi, JmemTestRun *r,
                       char **log)
{
  run_with_nvml_args (libdir, mode, nvidia_smi, snapshot_args, r, log, NULL);
}

static void
run_with_nvml (const char *libdir, const char *mode, JmemTestRun *r, char **log)
{
  run_with_nvml_and_smi (libdir, mode, NULL, r, log);
}

/* The process row of @pid in gpu.processes, or NULL. */
static JsonObject *
gpu_row (JsonNode *root, gint64 pid)
{
  JsonArray *rows = array_at (root, "gpu", "processes");

  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *o = json_array_get_object_element (rows, i);

      if (json_object_get_int_member (o, "pid") == pid)
        return o;
    }
  return NULL;
}

/* The jmem row of gpu.processes: the stub lists its caller. */
static JsonObject *
jmem_row (JsonNode *root)
{
  JsonArray *rows = array_at (root, "gpu", "processes");

  for (guint i = 0; i < json_array_get_length (rows); i++)
    {
      JsonObject *o = json_array_get_object_element (rows, i);

      if (json_object_get_int_member (o, "pid") != 999999)
        return o;
    }
  return NULL;
}

/* The power mode is kept per boot and per content of nvpmodel's status
 * file: a mode set with `nvpmodel -m` is asked for once, by the next run,
 * and only nvpmodel is asked. Needs root for the mount namespace. */
static void
test_metrics_power_mode_change (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *run = NULL;
  g_autofree char *status_dir = NULL;
  g_autofree char *status = NULL;
  g_autofree char *lib = NULL;
  char *ran;
  uid_t uid;
  gid_t gid;

  if (geteuid () != 0)
    {
      g_test_skip ("needs root for a private mount namespace");
      return;
    }
  if (!test_user (&uid, &gid))
    return;
  dir = make_dir (uid, gid);
  run = g_build_filename (dir, "run", NULL);
  lib = g_build_filename (dir, "var-lib", NULL);
  status_dir = g_build_filename (lib, "nvpmodel", NULL);
  status = g_build_filename (status_dir, "status", NULL);
  g_assert_cmpint (g_mkdir (run, 0700), ==, 0);
  g_assert_cmpint (chown (run, uid, gid), ==, 0);
  g_assert_cmpint (g_mkdir_with_parents (status_dir, 0755), ==, 0);
  g_assert_true (g_file_set_contents (status, "pmode:0000 fmode:quiet\n", -1, NULL));
  write_recorder (dir, "nvidia-smi", "0, [N/A], [N/A], [N/A], [N/A], Orin (nvgpu)\\n");
  write_recorder (dir, "nvpmodel", "NV Power Mode: MAXN\\n0\\n");
  var_lib = lib;

  ran = metrics_ran (dir, uid, gid);
  g_assert_cmpstr (ran, ==, "nvidia-smi --query-gpu\nnvidia-smi --query-compute-apps\nnvpmodel -q\n");
  g_free (ran);
  ran = metrics_ran (dir, uid, gid);
  g_assert_null (ran);

  /* `nvpmodel -m 2` rewrote the file: the next run asks nvpmodel alone */
  g_assert_true (g_file_set_contents (status, "pmode:0002 fmode:quiet\n", -1, NULL));
  write_recorder (dir, "nvpmodel", "NV Power Mode: 15W\\n2\\n");
  ran = metrics_ran (dir, uid, gid);
  g_assert_cmpstr (ran, ==, "nvpmodel -q\n");
  g_free (ran);
  ran = metrics_ran (dir, uid, gid);
  g_assert_null (ran);

  var_lib = NULL;
  remove_tree (dir);
}

static void
test_nvml_processes (void)
{
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *log = NULL;
  JsonObject *gpu, *dev, *self, *gone;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  run_with_nvml (JMEM_NVML_STUB_DIR, "processes", &r, &log);
  gpu = json_object_get_object_member (json_node_get_object (r.json), "gpu");
  g_assert_cmpstr (json_object_get_string_member (gpu, "stack"), ==, "unified");
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "source: nvml"));
  g_assert_false (jmem_test_has_gpu_evidence (r.json, "nvidia-smi --query"));
  dev = json_array_get_object_element (json_object_get_array_member (gpu, "devices"), 0);
  g_assert_cmpstr (json_object_get_string_member (dev, "uuid"), ==, "GPU-stub-0000");
  g_assert_cmpstr (json_object_get_string_member (dev, "name"), ==, "NVIDIA Stub GPU");
  g_assert_cmpint (json_object_get_int_member (dev, "memory_used_kib"), ==, 10 * 1024 * 1024);
  /* the newest entry points, and one row per process: a process both
   * computing (1 GiB) and drawing (3 GiB) counts its larger figure once */
  g_assert_nonnull (strstr (log, "compute_v3\n"));
  g_assert_nonnull (strstr (log, "graphics_v3\n"));
  g_assert_null (strstr (log, "_v2"));
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (gpu, "processes")), ==, 2);
  self = jmem_row (r.json);
  g_assert_nonnull (self);
  g_assert_cmpint (json_object_get_int_member (self, "used_memory_kib"), ==, 3 * 1024 * 1024);
  /* named from /proc, not by the library */
  g_assert_cmpstr (json_object_get_string_member (self, "process_name"), ==, "jmem");
  g_assert_true (json_object_get_boolean_member (self, "pid_exists"));
  gone = gpu_row (r.json, 999999);
  g_assert_nonnull (gone);
  g_assert_false (json_object_get_boolean_member (gone, "pid_exists"));
  g_assert_cmpint (json_object_get_int_member (gone, "used_memory_kib"), ==, 2 * 1024 * 1024);
  g_assert_true (json_object_get_boolean_member (gpu, "processes_trusted"));
}

/* jmem capture where NVML loads: it records NVML's answer (PIDs, used
 * memory, which list named each) beside nvidia-smi's output, and
 * --sysroot prefers it, as live jmem does. */
static void
test_nvml_capture (void)
{
  const char *capture[] = { "capture", "--no-ask-password", "cap", NULL };
  const char *snapshot[] = { "snapshot", "--json", "--all", "--sysroot", "cap", NULL };
  g_auto(JmemTestRun) cap = { 0 };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *log = NULL, *dir = NULL, *path = NULL, *record = NULL;
  g_autoptr(JsonNode) doc = NULL;
  JsonArray *procs;
  JsonObject *gone = NULL, *jmem = NULL;

  run_with_nvml_args (JMEM_NVML_STUB_DIR, "processes",
                      "0, GPU-smi-0000, 1, 1, 0, NVIDIA Thor\\n", capture, &cap, &log, &dir);
  path = g_build_filename (dir, "cap", "nvidia-smi", "nvml.json", NULL);
  g_assert_true (g_file_get_contents (path, &record, NULL, NULL));
  doc = json_from_string (record, NULL);
  g_assert_nonnull (doc);
  procs = json_object_get_array_member (json_node_get_object (doc), "processes");
  g_assert_cmpuint (json_array_get_length (procs), ==, 2);
  for (guint i = 0; i < 2; i++)
    {
      JsonObject *p = json_array_get_object_element (procs, i);

      if (json_object_get_int_member (p, "pid") == 999999)
        gone = p;
      else
        jmem = p;
    }
  g_assert_nonnull (gone);
  g_assert_nonnull (jmem);
  g_assert_cmpint (json_object_get_int_member (gone, "used_memory_mib"), ==, 2048);
  g_assert_cmpint (json_object_get_int_member (jmem, "used_memory_mib"), ==, 3072);
  g_assert_cmpuint (json_array_get_length (json_object_get_array_member (jmem, "lists")), ==, 2);

  /* read back without NVML: the record, not nvidia-smi's text */
  run_jmem (dir, NULL, geteuid (), getegid (), snapshot, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "source: nvml"));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "recorded in the capture"));
  g_assert_cmpstr (json_object_get_string_member (
                     json_array_get_object_element (array_at (r.json, "gpu", "devices"), 0), "uuid"),
                   ==, "GPU-stub-0000");
  g_assert_cmpint (json_object_get_int_member (gpu_row (r.json, 999999), "used_memory_kib"), ==,
                   2 * 1024 * 1024);
  g_assert_false (json_object_get_boolean_member (gpu_row (r.json, 999999), "pid_exists"));
  g_assert_cmpint (json_object_get_int_member (gpu_row (r.json, json_object_get_int_member (jmem, "pid")),
                                               "used_memory_kib"), ==, 3 * 1024 * 1024);
  remove_tree (dir);
}

static void
test_nvml_not_supported (void)
{
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *log = NULL;
  JsonObject *dev;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  run_with_nvml (JMEM_NVML_STUB_DIR, "not-supported", &r, &log);
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "source: nvml"));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "memory not supported"));
  dev = json_array_get_object_element (array_at (r.json, "gpu", "devices"), 0);
  g_assert_true (json_object_get_null_member (dev, "memory_used_kib"));
  g_assert_true (json_object_get_null_member (dev, "memory_total_kib"));
  g_assert_true (json_object_get_null_member (jmem_row (r.json), "used_memory_kib"));
}

static void
test_nvml_insufficient_size (void)
{
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *log = NULL;
  g_auto(GStrv) calls = NULL;
  guint compute = 0;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  run_with_nvml (JMEM_NVML_STUB_DIR, "insufficient", &r, &log);
  calls = g_strsplit (log, "\n", -1);
  for (guint i = 0; calls[i] != NULL; i++)
    compute += g_str_equal (calls[i], "compute_v3");
  /* size query, a fill refused because the list grew, the fill */
  g_assert_cmpuint (compute, ==, 3);
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "source: nvml"));
  g_assert_cmpuint (json_array_get_length (array_at (r.json, "gpu", "processes")), ==, 2);
}

static void
test_nvml_no_v3 (void)
{
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *log = NULL;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  run_with_nvml (JMEM_NVML_STUB_V2_DIR, "processes", &r, &log);
  g_assert_null (strstr (log, "_v3"));
  g_assert_nonnull (strstr (log, "compute_v2\n"));
  g_assert_nonnull (strstr (log, "graphics_v2\n"));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "nvmlDeviceGetComputeRunningProcesses_v2"));
  g_assert_cmpint (json_object_get_int_member (jmem_row (r.json), "used_memory_kib"), ==, 3 * 1024 * 1024);
}

/* nvmlInit fails: nvidia-smi answers and is named the source, and the
 * evidence says why NVML is not; without nvidia-smi nothing is named the
 * source (gpu.source says none). */
static void
test_nvml_fail_init (void)
{
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) none = { 0 };
  g_autofree char *log = NULL;
  g_autofree char *log2 = NULL;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  run_with_nvml_and_smi (JMEM_NVML_STUB_DIR, "fail-init",
                         "0, [N/A], [N/A], [N/A], [N/A], Orin (nvgpu)\\n", &r, &log);
  g_assert_null (log);
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "nvml: nvmlInit_v2 failed: error 999"));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "source: nvidia-smi"));
  g_assert_cmpuint (json_array_get_length (array_at (r.json, "gpu", "processes")), ==, 0);

  run_with_nvml (JMEM_NVML_STUB_DIR, "fail-init", &none, &log2);
  g_assert_true (jmem_test_has_gpu_evidence (none.json, "nvml: nvmlInit_v2 failed: error 999"));
  g_assert_true (jmem_test_has_gpu_evidence (none.json, "not installed"));
  g_assert_false (jmem_test_has_gpu_evidence (none.json, "source: nvidia-smi"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_node_get_object (none.json), "gpu"), "source"), ==, "none");
}

/* Root never loads a library from LD_LIBRARY_PATH. */
static void
test_nvml_root_ignores_ld_path (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *log_path = NULL;
  g_autofree char *ld = g_strdup_printf ("LD_LIBRARY_PATH=%s", JMEM_NVML_STUB_DIR);
  g_autofree char *log_env = NULL;
  g_autofree char *log = NULL;
  g_auto(JmemTestRun) r = { 0 };

  if (geteuid () != 0)
    {
      g_test_skip ("needs root");
      return;
    }
  dir = make_dir (0, 0);
  log_path = g_build_filename (dir, "nvml-calls", NULL);
  log_env = g_strdup_printf ("JMEM_NVML_STUB_LOG=%s", log_path);
  {
    const char *envp[] = { ld, log_env, "PATH=/usr/bin:/bin", NULL };

    run_jmem (dir, envp, 0, 0, snapshot_args, &r);
  }
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (g_file_get_contents (log_path, &log, NULL, NULL));
  g_assert_false (jmem_test_has_gpu_evidence (r.json, "source: nvml"));
  g_assert_false (jmem_test_has_gpu_evidence (r.json, "GPU-stub-0000"));
  remove_tree (dir);
}

/* A hung nvidia-smi is killed (with its children) and reported, never waited on. */
static void
test_nvidia_smi_timeout (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_auto(JmemTestRun) r = { 0 };
  gint64 start;
  JsonArray *ev;
  uid_t uid;
  gid_t gid;

  if (!test_user (&uid, &gid))
    return;
  dir = make_dir (uid, gid);
  write_stand_in (dir, "bin", "sleep 60 &\nsleep 60\n");
  path = g_strdup_printf ("PATH=%s/bin:/usr/bin:/bin", dir);
  {
    const char *envp[] = { path, NULL };

    start = g_get_monotonic_time ();
    run_jmem (dir, envp, uid, gid, snapshot_args, &r);
  }
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpint (g_get_monotonic_time () - start, <, 20 * G_USEC_PER_SEC);
  g_assert_true (has_warning (r.json, "gpu", "killed"));
  ev = array_at (r.json, "gpu", "evidence");
  g_assert_nonnull (strstr (json_array_get_string_element (ev, 0), "killed"));
  g_assert_cmpstr (json_object_get_string_member (json_object_get_object_member (
                     json_node_get_object (r.json), "gpu"), "stack"), ==, "none");
  remove_tree (dir);
}

#define GPU_UUID  "GPU-6a1f0e3c-92b4-4d8e-b7a1-5c3d2e1f0a9b"
#define GONE_PID  4194304   /* above PID_MAX_LIMIT: never a process */
#define FORGED_MIB 9999999  /* more than any machine's RAM */

/* A stand-in nvidia-smi on the unified stack printing @apps for
 * --query-compute-apps; jmem is run with it as a plain user. */
/* nvidia-smi answers @apps to --query-compute-apps, and @again (when not
 * NULL) each later time, as the driver does once a listed process exited. */
static void
run_with_answers (const char *apps, const char *again, const char * const *args, JmemTestRun *r,
                  char **dir_out)
{
  g_autofree char *body = NULL;
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  uid_t uid;
  gid_t gid;

  g_assert_true (test_user (&uid, &gid));
  dir = make_dir (uid, gid);
  body = again == NULL
    ? g_strdup_printf ("case \"$1\" in\n"
                       "--query-gpu=*) echo '0, " GPU_UUID ", 122880, 61440, 61440, NVIDIA Thor' ;;\n"
                       "--query-compute-apps=*) printf '%%s' '%s' ;;\n"
                       "esac\n", apps)
    : g_strdup_printf ("case \"$1\" in\n"
                       "--query-gpu=*) echo '0, " GPU_UUID ", 122880, 61440, 61440, NVIDIA Thor' ;;\n"
                       "--query-compute-apps=*) if [ -e '%s/asked' ]; then printf '%%s' '%s';\n"
                       "  else : > '%s/asked'; printf '%%s' '%s'; fi ;;\n"
                       "esac\n", dir, again, dir, apps);
  write_stand_in (dir, "bin", body);
  path = g_strdup_printf ("PATH=%s/bin:/usr/bin:/bin", dir);
  {
    const char *envp[] = { path, NULL };

    run_jmem (dir, envp, uid, gid, args, r);
  }
  *dir_out = g_steal_pointer (&dir);
}

static void
run_with_apps (const char *apps, const char * const *args, JmemTestRun *r, char **dir_out)
{
  run_with_answers (apps, NULL, args, r, dir_out);
}

static JsonObject *
find_pid (JsonArray *a, gint64 pid)
{
  for (guint i = 0; i < json_array_get_length (a); i++)
    {
      JsonObject *o = json_array_get_object_element (a, i);

      if (json_object_get_int_member (o, "pid") == pid)
        return o;
    }
  return NULL;
}

static JsonArray *
process_list (JsonNode *root)
{
  return array_at (root, "processes", "list");
}

static gboolean
gpu_trusted (JsonNode *root)
{
  JsonObject *gpu = json_object_get_object_member (json_node_get_object (root), "gpu");

  g_assert_true (json_object_has_member (gpu, "processes_trusted"));
  return json_object_get_boolean_member (gpu, "processes_trusted");
}

/* No finding names @pid. */
static void
assert_not_named (JsonNode *root, gint64 pid)
{
  JsonArray *f = json_object_get_array_member (json_node_get_object (root), "findings");
  g_autofree char *needle = g_strdup_printf ("PID %" G_GINT64_FORMAT " (", pid);

  for (guint i = 0; i < json_array_get_length (f); i++)
    {
      const char *message = json_object_get_string_member (json_array_get_object_element (f, i),
                                                           "message");

      if (strstr (message, needle) != NULL)
        g_printerr ("finding names PID %" G_GINT64_FORMAT ": %s\n", pid, message);
      g_assert_null (strstr (message, needle));
    }
}

/* A child named "evil\nforged", as a forger names itself, once the name is
 * set: the caller kills and reaps it. */
static pid_t
start_forger (void)
{
  int ready[2];
  pid_t child;
  char c;

  g_assert_cmpint (pipe (ready), ==, 0);
  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      /* gone with the test even when an assertion ends it first */
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      prctl (PR_SET_NAME, "evil\nforged", 0, 0, 0);
      if (write (ready[1], "x", 1) != 1)
        _exit (1);
      for (;;)
        pause ();
    }
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &c, 1), ==, 1);
  close (ready[0]);
  return child;
}

/* A process whose name really holds a newline, as nvidia-smi would print
 * it: its row is followed by one it forged for PID 1. Nothing may be
 * attributed to PID 1 and triage names nobody from the forged row. */
static void
test_nvidia_smi_forged_row (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  g_auto(JmemTestRun) r = { 0 };
  g_autofree char *dir = NULL, *apps = NULL;
  JsonArray *rows;
  JsonObject *init, *row, *evil;
  pid_t child = start_forger ();

  apps = g_strdup_printf (GPU_UUID ", %d, 100, evil\n"
                          GPU_UUID ", 1, %d, forged-init\n", (int) child, FORGED_MIB);
  run_with_apps (apps, args, &r, &dir);
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);
  g_assert_cmpint (r.status, ==, 0);

  g_assert_false (gpu_trusted (r.json));
  g_assert_true (has_warning (r.json, "gpu", "untrusted"));
  /* the rows are still shown, under the names /proc gives their PIDs */
  rows = array_at (r.json, "gpu", "processes");
  g_assert_cmpuint (json_array_get_length (rows), ==, 2);
  init = find_pid (process_list (r.json), 1);
  g_assert_nonnull (init);
  row = find_pid (rows, 1);
  g_assert_nonnull (row);
  g_assert_cmpstr (json_object_get_string_member (row, "process_name"), ==,
                   json_object_get_string_member (init, "name"));
  evil = find_pid (process_list (r.json), child);
  g_assert_nonnull (evil);
  g_assert_cmpstr (json_object_get_string_member (find_pid (rows, child), "process_name"), ==,
                   json_object_get_string_member (evil, "name"));
  /* the row its name follows is nvidia-smi's own (the name is printed last) */
  g_assert_true (json_object_get_boolean_member (find_pid (rows, child), "trusted"));
  g_assert_cmpint (json_object_get_int_member (evil, "gpu_kib"), ==, 100 * 1024);
  /* the forged one gives no GPU memory to anyone, and no finding names it */
  g_assert_false (json_object_get_boolean_member (row, "trusted"));
  g_assert_true (json_object_get_null_member (init, "gpu_kib"));
  g_assert_cmpint (json_object_get_int_member (init, "footprint_kib"), <, (gint64) FORGED_MIB * 1024);
  assert_not_named (r.json, 1);
  remove_tree (dir);
}

/* A row for a GPU --query-gpu did not list counts for no one. */
static void
test_nvidia_smi_unlisted_gpu (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  g_autofree char *apps = g_strdup_printf (GPU_UUID ", %d, 100, a-name-of-its-choosing\n"
                                           "GPU-00000000-0000-0000-0000-000000000000, 1, %d, forged-init\n",
                                           (int) getpid (), FORGED_MIB);
  g_autofree char *dir = NULL;
  g_auto(JmemTestRun) r = { 0 };
  JsonArray *rows;
  JsonObject *self;

  run_with_apps (apps, args, &r, &dir);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (gpu_trusted (r.json));
  g_assert_true (has_warning (r.json, "gpu", "did not list"));
  rows = array_at (r.json, "gpu", "processes");
  g_assert_cmpuint (json_array_get_length (rows), ==, 1);
  g_assert_null (find_pid (rows, 1));
  g_assert_cmpint (json_object_get_int_member (find_pid (process_list (r.json), 1), "gpu_kib"), ==, 0);
  assert_not_named (r.json, 1);
  /* a trusted row still counts, under the PID's own name */
  self = find_pid (process_list (r.json), getpid ());
  g_assert_nonnull (self);
  g_assert_cmpint (json_object_get_int_member (self, "gpu_kib"), ==, 100 * 1024);
  g_assert_cmpstr (json_object_get_string_member (find_pid (rows, getpid ()), "process_name"), ==,
                   json_object_get_string_member (self, "name"));
  g_assert_true (json_object_get_boolean_member (find_pid (rows, getpid ()), "pid_exists"));
  remove_tree (dir);
}

/* A listed PID whose /proc entry cannot be read (here: gone, as a forger
 * that exits once nvidia-smi has answered; /proc mounted hidepid looks the
 * same), and still listed when nvidia-smi is asked again, may have forged
 * the rows after its own: the 9999999 MiB they give PID 1 count for
 * nobody. The row before it is nvidia-smi's own and counts. Its row stays,
 * as "no such process": memory the driver still counts for it. */
static void
test_nvidia_smi_unreadable_pid (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  const char *human[] = { "snapshot", "--all", "--no-ask-password", NULL };
  g_autofree char *apps = g_strdup_printf (GPU_UUID ", %d, 100, a-name-of-its-choosing\n"
                                           GPU_UUID ", %d, 50, gone\n"
                                           GPU_UUID ", 1, %d, forged-init\n",
                                           (int) getpid (), GONE_PID, FORGED_MIB);
  g_autofree char *dir = NULL;
  g_autofree char *because = g_strdup_printf ("PID %d could not be read", GONE_PID);
  g_auto(JmemTestRun) r = { 0 };
  g_auto(JmemTestRun) h = { 0 };
  JsonObject *gone, *init, *self;

  run_with_apps (apps, args, &r, &dir);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (gpu_trusted (r.json));
  g_assert_true (has_warning (r.json, "gpu", because));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "asked twice"));
  init = find_pid (process_list (r.json), 1);
  g_assert_nonnull (init);
  g_assert_true (json_object_get_null_member (init, "gpu_kib"));
  g_assert_cmpint (json_object_get_int_member (init, "footprint_kib"), <, (gint64) FORGED_MIB * 1024);
  assert_not_named (r.json, 1);
  self = find_pid (process_list (r.json), getpid ());
  g_assert_cmpint (json_object_get_int_member (self, "gpu_kib"), ==, 100 * 1024);
  gone = find_pid (array_at (r.json, "gpu", "processes"), GONE_PID);
  g_assert_nonnull (gone);
  g_assert_false (json_object_get_boolean_member (gone, "pid_exists"));
  g_assert_cmpint (json_object_get_int_member (gone, "used_memory_kib"), ==, 50 * 1024);
  g_assert_cmpstr (json_object_get_string_member (gone, "process_name"), ==, "gone");
  remove_tree (dir);
  g_clear_pointer (&dir, g_free);

  run_with_apps (apps, human, &h, &dir);
  {
    g_autofree char *needle = g_strdup_printf (" %d ", GONE_PID);
    const char *line = strstr (h.out, needle);

    g_assert_nonnull (line);
    line = strstr (line, "gone");
    g_assert_nonnull (line);
    for (line += 4; *line == ' '; line++)
      ;
    g_assert_true (g_str_has_prefix (line, "(no such process)\n"));
  }
  g_assert_null (strstr (h.out, "forged-init"));
  remove_tree (dir);
}

/* Churn: a listed process exits before jmem reads its name, first, in the
 * middle or last of nvidia-smi's answer. Asked again, nvidia-smi lists it
 * no more, and every live process keeps its GPU memory. */
static void
test_nvidia_smi_churn (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  const gint64 live[] = { getpid (), 1, getppid () };
  const gint64 mib[] = { 100, 200, 300 };

  for (guint at = 0; at <= G_N_ELEMENTS (live); at++)
    {
      g_autoptr(GString) first = g_string_new (NULL);
      g_autoptr(GString) again = g_string_new (NULL);
      g_autofree char *dir = NULL;
      g_autofree char *ran = NULL;
      g_auto(GStrv) lines = NULL;
      g_auto(JmemTestRun) r = { 0 };

      for (guint i = 0; i <= G_N_ELEMENTS (live); i++)
        {
          if (i == at)
            g_string_append_printf (first, GPU_UUID ", %d, 2048, gone\n", GONE_PID);
          if (i < G_N_ELEMENTS (live))
            {
              g_autofree char *row = g_strdup_printf (GPU_UUID ", %" G_GINT64_FORMAT ", %"
                                                      G_GINT64_FORMAT ", live\n", live[i], mib[i]);

              g_string_append (first, row);
              g_string_append (again, row);
            }
        }
      run_with_answers (first->str, again->str, args, &r, &dir);
      g_assert_cmpint (r.status, ==, 0);
      g_assert_true (gpu_trusted (r.json));
      g_assert_true (jmem_test_has_gpu_evidence (r.json, "asked twice"));
      g_assert_false (has_warning (r.json, "gpu", "untrusted"));
      for (guint i = 0; i < G_N_ELEMENTS (live); i++)
        {
          JsonObject *p = find_pid (process_list (r.json), live[i]);

          g_assert_nonnull (p);
          g_assert_cmpint (json_object_get_int_member (p, "gpu_kib"), ==, mib[i] * 1024);
        }
      g_assert_null (find_pid (array_at (r.json, "gpu", "processes"), GONE_PID));
      /* --query-gpu once, --query-compute-apps twice */
      ran = marker (dir);
      g_assert_nonnull (ran);
      lines = g_strsplit (ran, "\n", -1);
      g_assert_cmpuint (g_strv_length (lines), ==, 3 + 1);
      remove_tree (dir);
    }
}

/* jmem capture where nvidia-smi's first answer lists a PID with no process
 * (gone before /proc was copied): it records the second answer beside the
 * first, and the capture reads back as the live board would. */
static void
test_capture_churn (void)
{
  const char *capture[] = { "capture", "--no-ask-password", "cap", NULL };
  const char *snapshot[] = { "snapshot", "--json", "--all", "--sysroot", "cap", NULL };
  g_autofree char *again = g_strdup_printf (GPU_UUID ", %d, 100, live\n" GPU_UUID ", 1, 200, init\n",
                                            (int) getpid ());
  g_autofree char *first = g_strdup_printf (GPU_UUID ", %d, 100, live\n"
                                            GPU_UUID ", %d, 2048, gone\n"
                                            GPU_UUID ", 1, 200, init\n", (int) getpid (), GONE_PID);
  g_autofree char *dir = NULL, *recorded = NULL, *path = NULL;
  g_auto(JmemTestRun) cap = { 0 };
  g_auto(JmemTestRun) r = { 0 };

  run_with_answers (first, again, capture, &cap, &dir);
  g_assert_cmpint (cap.status, ==, 0);
  path = g_build_filename (dir, "cap", "nvidia-smi", "query-compute-apps.again.csv", NULL);
  g_assert_true (g_file_get_contents (path, &recorded, NULL, NULL));
  g_assert_cmpstr (recorded, ==, again);

  run_jmem (dir, NULL, geteuid (), getegid (), snapshot, &r);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (gpu_trusted (r.json));
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "asked twice, PID 4194304"));
  g_assert_cmpint (json_object_get_int_member (find_pid (process_list (r.json), getpid ()), "gpu_kib"),
                   ==, 100 * 1024);
  g_assert_cmpint (json_object_get_int_member (find_pid (process_list (r.json), 1), "gpu_kib"),
                   ==, 200 * 1024);
  remove_tree (dir);
}

/* Asked again, the answer holds a name with a newline: the row it forges
 * for PID 1 still counts for no one, while the rows before it count. */
static void
test_nvidia_smi_churn_then_forged (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  g_autofree char *first = NULL, *again = NULL, *dir = NULL;
  g_auto(JmemTestRun) r = { 0 };
  JsonObject *init;
  pid_t child = start_forger ();

  again = g_strdup_printf (GPU_UUID ", %d, 100, a-name-of-its-choosing\n"
                           GPU_UUID ", %d, 200, evil\n"
                           GPU_UUID ", 1, %d, forged-init\n",
                           (int) getpid (), (int) child, FORGED_MIB);
  first = g_strdup_printf (GPU_UUID ", %d, 2048, gone\n%s", GONE_PID, again);
  run_with_answers (first, again, args, &r, &dir);
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (jmem_test_has_gpu_evidence (r.json, "asked twice"));
  g_assert_false (gpu_trusted (r.json));
  g_assert_cmpint (json_object_get_int_member (find_pid (process_list (r.json), getpid ()), "gpu_kib"),
                   ==, 100 * 1024);
  g_assert_cmpint (json_object_get_int_member (find_pid (process_list (r.json), child), "gpu_kib"),
                   ==, 200 * 1024);
  init = find_pid (process_list (r.json), 1);
  g_assert_true (json_object_get_null_member (init, "gpu_kib"));
  g_assert_cmpint (json_object_get_int_member (init, "footprint_kib"), <, (gint64) FORGED_MIB * 1024);
  assert_not_named (r.json, 1);
  remove_tree (dir);
}

/* A PID listed twice for one GPU proves that a name forged a row, even when
 * every name reads clean by the time jmem looks (the forger renamed itself):
 * no row of that answer counts. */
static void
test_nvidia_smi_listed_twice (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  g_autofree char *apps = g_strdup_printf (GPU_UUID ", %d, 100, clean-now\n"
                                           GPU_UUID ", 1, %d, init\n"
                                           GPU_UUID ", %d, 100, clean-now\n",
                                           (int) getpid (), FORGED_MIB, (int) getpid ());
  g_autofree char *dir = NULL;
  g_auto(JmemTestRun) r = { 0 };

  run_with_apps (apps, args, &r, &dir);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_false (gpu_trusted (r.json));
  g_assert_true (has_warning (r.json, "gpu", "listed twice"));
  g_assert_true (json_object_get_null_member (find_pid (process_list (r.json), 1), "gpu_kib"));
  g_assert_true (json_object_get_null_member (find_pid (process_list (r.json), getpid ()), "gpu_kib"));
  assert_not_named (r.json, 1);
  remove_tree (dir);
}

/* A process whose command line holds a newline while its name does not
 * (nvidia-smi may print either): the answer is untrusted all the same. */
static void
test_nvidia_smi_forged_by_cmdline (void)
{
  const char *args[] = { "snapshot", "--json", "--all", "--no-ask-password", NULL };
  g_autofree char *apps = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *cmdline_path = NULL;
  g_autofree char *because = NULL;
  g_auto(JmemTestRun) r = { 0 };
  JsonObject *init;
  pid_t child;

  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      execl ("/bin/sleep", "sleep\n" GPU_UUID ", 1, 9999999, forged-init", "600", (char *) NULL);
      _exit (127);
    }
  /* the name stays "sleep"; only the command line holds the newline */
  cmdline_path = g_strdup_printf ("/proc/%d/cmdline", (int) child);
  for (int i = 0; i < 500; i++)
    {
      g_autofree char *cmdline = NULL;

      if (g_file_get_contents (cmdline_path, &cmdline, NULL, NULL) && strchr (cmdline, '\n') != NULL)
        break;
      g_usleep (10000);
    }
  apps = g_strdup_printf (GPU_UUID ", %d, 100, sleep\n"
                          GPU_UUID ", 1, %d, forged-init\n", (int) child, FORGED_MIB);
  run_with_apps (apps, args, &r, &dir);
  kill (child, SIGKILL);
  waitpid (child, NULL, 0);
  g_assert_cmpint (r.status, ==, 0);

  because = g_strdup_printf ("command line of PID %d holds a newline", (int) child);
  g_assert_false (gpu_trusted (r.json));
  g_assert_true (has_warning (r.json, "gpu", because));
  init = find_pid (process_list (r.json), 1);
  g_assert_true (json_object_get_null_member (init, "gpu_kib"));
  assert_not_named (r.json, 1);
  remove_tree (dir);
}

int
main (int argc, char **argv)
{
  int rc;

  g_test_init (&argc, &argv, NULL);
  g_assert_nonnull (g_getenv ("JMEM_EXE"));

  g_test_add_func ("/programs/root-ignores-path", test_root_ignores_path);
  g_test_add_func ("/programs/user-path", test_user_path);
  g_test_add_func ("/programs/watch-probes-once", test_watch_probes_once);
  g_test_add_func ("/programs/metrics-probes-once-per-boot", test_metrics_probes_once_per_boot);
  g_test_add_func ("/programs/metrics-power-mode-change", test_metrics_power_mode_change);
  g_test_add_func ("/programs/nvml-processes", test_nvml_processes);
  g_test_add_func ("/programs/nvml-not-supported", test_nvml_not_supported);
  g_test_add_func ("/programs/nvml-capture", test_nvml_capture);
  g_test_add_func ("/programs/nvml-insufficient-size", test_nvml_insufficient_size);
  g_test_add_func ("/programs/nvml-no-v3", test_nvml_no_v3);
  g_test_add_func ("/programs/nvml-fail-init", test_nvml_fail_init);
  g_test_add_func ("/programs/nvml-root-ignores-ld-path", test_nvml_root_ignores_ld_path);
  g_test_add_func ("/programs/nvidia-smi-timeout", test_nvidia_smi_timeout);
  g_test_add_func ("/programs/nvidia-smi-forged-row", test_nvidia_smi_forged_row);
  g_test_add_func ("/programs/nvidia-smi-unlisted-gpu", test_nvidia_smi_unlisted_gpu);
  g_test_add_func ("/programs/nvidia-smi-unreadable-pid", test_nvidia_smi_unreadable_pid);
  g_test_add_func ("/programs/nvidia-smi-forged-by-cmdline", test_nvidia_smi_forged_by_cmdline);
  g_test_add_func ("/programs/nvidia-smi-churn", test_nvidia_smi_churn);
  g_test_add_func ("/programs/capture-churn", test_capture_churn);
  g_test_add_func ("/programs/nvidia-smi-churn-then-forged", test_nvidia_smi_churn_then_forged);
  g_test_add_func ("/programs/nvidia-smi-listed-twice", test_nvidia_smi_listed_twice);
  rc = g_test_run ();
  test_account_remove_created ();
  return rc;
}
