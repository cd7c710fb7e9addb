/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-mcp-tools.h"

#include "jmem-advice.h"
#include "jmem-collect.h"
#include "jmem-config.h"
#include "jmem-container.h"
#include "jmem-error.h"
#include "jmem-framework-gates.h"
#include "jmem-json-writer.h"
#include "jmem-mcp-allocations.h"
#include "jmem-mcp-brief.h"
#include "jmem-mcp-fit.h"
#include "jmem-mcp-revision.h"
#include "jmem-mcp-schemas.h"
#include "jmem-ops-allocations.h"
#include "jmem-ops-audit.h"
#include "jmem-ops-drop-caches.h"
#include "jmem-ops-headroom.h"
#include "jmem-ops-snapshot.h"
#include "jmem-ops-triage.h"
#include "jmem-triage-history.h"

#include "jmem-size.h"

#include <gio/gio.h>
#include <math.h>
#include <string.h>

/* The largest handles listed by default; every handle is in the summary. */
#define DEFAULT_ALLOCATIONS_LIMIT 100
/* No handle takes fewer bytes in a result (its JSON twice, the text's
 * escaped): no more can ever fit in a limit of N bytes than N / this. */
#define MIN_HANDLE_RESULT_BYTES 200
/* What a call that asks for nothing more gives a model at most, the larger
 * of its text block and its structuredContent (docs/mcp.md, "What the model
 * receives"): a client gives its model one of the two. An audit holds two
 * snapshots and their comparison. */
#define RESULT_BUDGET_BYTES (8 * 1024)
#define AUDIT_RESULT_BUDGET_BYTES (16 * 1024)
/* A tools/call blocks its client: the official SDK gives up after 60 s. */
#define MAX_WAIT_SECONDS 50

/* ARG_SIZE: a size string ("6G", jmem-size.h) or a number of bytes;
 * ARG_ENUM: one of the strings of choices. */
typedef enum { ARG_INTEGER, ARG_BOOLEAN, ARG_SIZE, ARG_ENUM } ArgType;

typedef struct {
  const char *name;
  ArgType     type;
  gint64      minimum, maximum;
  const char *description;
  const char * const *choices;  /* ARG_ENUM's, NULL-terminated */
} ToolArg;

typedef struct _Call Call;

typedef struct {
  const char         *name;
  const char         *title;
  const char         *description;
  const ToolArg      *args;       /* ends with a NULL name */
  gboolean            read_only;
  JsonNode         *(*run) (Call *call, JsonObject *args, GError **error);
  const char * const *cut_lists;  /* what jmem_mcp_fit() may shorten */
  const char * const *spare;      /* what a budgeted result empties first */
  const char * const *asks_more;  /* arguments that lift the budget */
  const char         *more;       /* which of them gives the whole document */
  gsize               budget;     /* what a default result gives a model at most */
} Tool;

struct _JmemMcpTools {
  char       *sysroot;
  char       *history;    /* the triage tool's rules over time read it; NULL: none */
  char       *container;  /* per boot: the same for every call */
  JmemCollectBoot *boot;  /* board identity and GPU probe, read once per boot */
  gsize       max_result_bytes;
  JsonNode   *list;
};

/* One tools/call as it runs. */
struct _Call {
  JmemMcpTools   *tools;
  const Tool     *tool;
  gsize           limit;  /* the most its result takes */
  gboolean        budget; /* limit is the tool's budget, on what a model reads */
  char           *figures; /* the text's key figures, of the whole document */
  JmemMcpFeatures features;
  GCancellable   *cancellable;
};

static gboolean
arg_given (JsonObject *args, const char *name)
{
  return args != NULL && json_object_has_member (args, name) &&
         !JSON_NODE_HOLDS_NULL (json_object_get_member (args, name));
}

static gint64
arg_int (JsonObject *args, const char *name, gint64 fallback)
{
  JsonNode *node;

  if (!arg_given (args, name))
    return fallback;
  node = json_object_get_member (args, name);
  if (json_node_get_value_type (node) == G_TYPE_DOUBLE)
    return (gint64) json_node_get_double (node);
  return json_node_get_int (node);
}

static gboolean
arg_bool (JsonObject *args, const char *name)
{
  return arg_given (args, name) && json_object_get_boolean_member (args, name);
}

static gboolean
refuse_sysroot (JmemMcpTools *tools, const char *tool, GError **error)
{
  if (tools->sysroot == NULL)
    return FALSE;
  g_set_error (error, JMEM_ERROR, JMEM_ERROR_NOT_AVAILABLE,
               "%s acts on the live system, and this server reads the capture %s\n"
               "To fix: start `jmem mcp` without --sysroot on the Jetson itself", tool,
               tools->sysroot);
  return TRUE;
}

/* The message a command prints for @error, with its "To fix" line: the
 * advice the commands give (an agent's call never gets a password prompt),
 * followed by ", or " @without_helper (nullable) where no helper can answer. */
static void
add_advice (GError **error, const char *without_helper)
{
  JmemAdvice advice = jmem_advice_for_error (*error, JMEM_ADVICE_NONE);
  g_autofree char *message = NULL;

  if (advice.action == NULL)
    return;
  if (advice.helper_unavailable && without_helper != NULL)
    message = g_strdup_printf ("%s\nTo fix: %s, or %s", (*error)->message, advice.action,
                               without_helper);
  else
    message = g_strdup_printf ("%s\nTo fix: %s", (*error)->message, advice.action);
  g_free ((*error)->message);
  (*error)->message = g_steal_pointer (&message);
}

static JsonNode *
run_snapshot (Call *call, JsonObject *args, GError **error)
{
  JmemMcpTools *tools = call->tools;
  JmemOpsSnapshotOptions options = { 0 };
  g_autoptr(JmemSnapshot) snapshot = NULL;
  gint64 pid = arg_int (args, "pid", -1);

  if (arg_given (args, "top") && arg_bool (args, "all"))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "invalid arguments: give \"top\" or \"all\", not both");
      return NULL;
    }
  options.sysroot = tools->sysroot;
  options.boot = tools->boot;
  options.top = arg_bool (args, "all") || pid >= 0 ? -1 :
                (int) arg_int (args, "top", JMEM_COLLECT_DEFAULT_TOP);
  snapshot = jmem_ops_snapshot (&options, error);
  if (snapshot == NULL)
    return NULL;
  return jmem_ops_snapshot_json (snapshot, pid);
}

static JsonNode *
run_triage (Call *call, JsonObject *args, GError **error)
{
  JmemMcpTools *tools = call->tools;
  JmemOpsTriageOptions options = { .sysroot = tools->sysroot, .boot = tools->boot };
  g_autoptr(JmemSnapshot) snapshot = NULL;

  snapshot = jmem_ops_triage (&options, error);
  if (snapshot == NULL)
    return NULL;
  /* the rules over time when the agent asks, or the operator named a
   * history: read again at each call, as jmem watch appends to it */
  if (tools->history != NULL || arg_bool (args, "history"))
    {
      const char *path = tools->history != NULL ? tools->history : jmem_ops_default_history ();
      g_autoptr(GPtrArray) over_time = NULL;
      guint n_samples = 0;

      over_time = jmem_ops_triage_history (path, 0, NULL, &n_samples, error);
      if (over_time == NULL)
        {
          g_prefix_error (error, "the history %s: ", path);
          return NULL;
        }
      for (guint i = 0; i < over_time->len; i++)
        g_ptr_array_add (snapshot->findings, g_steal_pointer (&over_time->pdata[i]));
      g_ptr_array_set_free_func (over_time, NULL);
    }
  return jmem_ops_triage_json (snapshot->findings);
}

/* The size in bytes of the result @doc gives this call, as sent. */
static gsize measure_result (JsonNode *doc, gpointer data);

/* The "cut" of an allocations document that shows @shown handles of the
 * @wanted its limit asked for (as jmem_mcp_fit() writes it). */
static void
mark_handles_cut (JsonNode *doc, guint shown, gint64 wanted, gsize limit)
{
  JsonObject *cut = json_object_new ();
  JsonArray *lists = json_array_new ();
  JsonObject *entry = json_object_new ();

  json_object_set_string_member (entry, "list", "handles");
  json_object_set_int_member (entry, "kept", shown);
  json_object_set_int_member (entry, "total", wanted);
  json_array_add_object_element (lists, entry);
  json_object_set_int_member (cut, "limit_bytes", (gint64) limit);
  json_object_set_array_member (cut, "lists", lists);
  json_object_set_int_member (cut, "strings", 0);
  json_object_set_object_member (json_node_get_object (doc), "cut", cut);
}

static JsonNode *
run_allocations (Call *call, JsonObject *args, GError **error)
{
  JmemMcpTools *tools = call->tools;
  JmemOpsAllocationsOptions options = { .sysroot = tools->sysroot };
  g_autoptr(JmemOpsAllocations) read = NULL;
  g_autoptr(JmemMcpAllocations) summary = NULL;
  gint64 limit = arg_int (args, "limit", DEFAULT_ALLOCATIONS_LIMIT);
  guint shown;

  read = jmem_ops_allocations (&options, error);
  if (read == NULL)
    {
      add_advice (error, NULL);
      return NULL;
    }
  /* no more handles are kept than could ever fit in a result */
  summary = jmem_mcp_allocations_new (arg_int (args, "pid", -1),
                                      (guint) MIN (limit, (gint64) (call->limit /
                                                                    MIN_HANDLE_RESULT_BYTES)));
  if (!jmem_mcp_allocations_add_all (summary, read, error))
    return NULL;

  /* fewer handles until the result fits; the summary holds them all */
  shown = jmem_mcp_allocations_n_kept (summary);
  for (;;)
    {
      g_autoptr(JsonNode) doc = jmem_mcp_allocations_json (summary, shown, read);
      JsonObject *sum = json_object_get_object_member (json_node_get_object (doc), "totals");
      gint64 wanted = MIN (limit, json_object_get_int_member (sum, "handles"));
      gsize size;
      guint fewer;

      /* fewer than the caller asked for is a cut, and says so */
      if ((gint64) shown < wanted)
        mark_handles_cut (doc, shown, wanted, call->limit);
      size = measure_result (doc, call);

      if (size <= call->limit || shown == 0)
        return g_steal_pointer (&doc);
      fewer = (guint) ((double) shown * (double) call->limit / (double) size * 0.95);
      shown = MIN (fewer, shown - 1);
    }
}

static JsonNode *
run_drop_caches (Call *call, JsonObject *args, GError **error)
{
  JmemMcpTools *tools = call->tools;
  JmemOpsDropCachesOptions options = { 0 };
  JsonNode *root;

  if (refuse_sysroot (tools, "drop_caches", error))
    return NULL;
  options.level = (guint) arg_int (args, "level", 3);
  options.compact = arg_bool (args, "compact");
  options.container = tools->container;
  root = jmem_ops_drop_caches (&options, error);
  if (root == NULL)
    add_advice (error, NULL);
  return root;
}

static JsonNode *
run_audit (Call *call, JsonObject *args, GError **error)
{
  JmemMcpTools *tools = call->tools;
  gboolean drop = arg_given (args, "level");
  JmemOpsAuditOptions options = { 0 };
  JsonNode *root;

  if (refuse_sysroot (tools, "audit", error))
    return NULL;
  if (drop && arg_given (args, "wait_seconds"))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "invalid arguments: \"wait_seconds\" is for an audit without a drop: give "
                   "\"level\" or \"wait_seconds\", not both");
      return NULL;
    }
  if (!drop && arg_bool (args, "compact"))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "invalid arguments: \"compact\" needs caches to be dropped: give \"level\" too");
      return NULL;
    }
  options.level = (guint) arg_int (args, "level", 3);
  options.compact = arg_bool (args, "compact");
  options.no_drop = !drop;
  options.wait_seconds = (guint) arg_int (args, "wait_seconds", 0);
  options.top = (int) arg_int (args, "top", JMEM_COLLECT_DEFAULT_TOP);
  options.container = tools->container;
  options.boot = tools->boot;
  options.diff_flags = JMEM_DIFF_NONE;
  options.cancellable = call->cancellable;
  root = jmem_ops_audit (&options, error);
  /* an audit without a drop needs no helper, so no bus either */
  if (root == NULL)
    add_advice (error, "audit without dropping caches: leave out \"level\"");
  return root;
}

/* A size argument checked by check_args(): its bytes. */
static guint64
arg_size (JsonObject *args, const char *name)
{
  JsonNode *node = json_object_get_member (args, name);
  guint64 bytes = 0;

  if (json_node_get_value_type (node) == G_TYPE_STRING)
    jmem_size_parse (json_node_get_string (node), &bytes, NULL);
  else
    bytes = (guint64) json_node_get_int (node);
  return bytes;
}

static JsonNode *
run_headroom (Call *call, JsonObject *args, GError **error)
{
  JmemMcpTools *tools = call->tools;
  JmemOpsHeadroomOptions options = { .sysroot = tools->sysroot, .boot = tools->boot, .need_kib = -1 };
  g_autoptr(JmemOpsHeadroom) result = NULL;

  if (arg_given (args, "need"))
    options.need_kib = (gint64) ((arg_size (args, "need") + 1023) / 1024);
  if (arg_given (args, "for"))
    options.framework = json_object_get_string_member (args, "for");
  result = jmem_ops_headroom (&options, error);
  if (result == NULL)
    return NULL;
  /* "4GB" is read as 4 GiB: said where the other notes are, as the CLI does */
  if (arg_given (args, "need") &&
      json_node_get_value_type (json_object_get_member (args, "need")) == G_TYPE_STRING)
    {
      char *note = jmem_size_unit_note (json_object_get_string_member (args, "need"));

      if (note != NULL)
        g_ptr_array_add (result->headroom->notes, note);
    }
  return jmem_ops_headroom_json (result);
}

static const ToolArg snapshot_args[] = {
  { "top", ARG_INTEGER, 0, G_MAXINT, "Keep the N largest processes (default 10); excludes all" },
  { "all", ARG_BOOLEAN, 0, 0, "Keep every process" },
  { "pid", ARG_INTEGER, 1, G_MAXUINT32, "Only this process: its process, NvMap and GPU rows" },
  { NULL },
};
static const ToolArg triage_args[] = {
  { "history", ARG_BOOLEAN, 0, 0,
    "Also the rules over time on the flight recorder's history (or the operator's): since "
    "when a leak grows, when memory runs out" },
  { NULL },
};
/* as jmem_gate_name() gives them */
static const char * const gate_names[] = {
  "vllm", "sglang", "tensorrt", "pytorch", "ollama", "llama.cpp", NULL,
};
static const ToolArg headroom_args[] = {
  { "need", ARG_SIZE, 0, (gint64) JMEM_SIZE_MAX_BYTES,
    "The job's size: bytes, or binary units: \"6G\", \"6GiB\", \"1.5G\"" },
  { "for", ARG_ENUM, 0, 0, "Only this framework's gate (default: all)", gate_names },
  { NULL },
};
static const ToolArg allocations_args[] = {
  { "pid", ARG_INTEGER, 0, G_MAXUINT32, "Only this process's handles (0: the kernel's)" },
  { "limit", ARG_INTEGER, 0, 1000000, "The N largest handles (default 100; fewer past the size limit)" },
  { NULL },
};
static const ToolArg drop_caches_args[] = {
  { "level", ARG_INTEGER, 1, 3, "1 page cache, 2 dentries and inodes, 3 both (default)" },
  { "compact", ARG_BOOLEAN, 0, 0, "Also compact memory (larger free blocks for CMA and NvMap)" },
  { NULL },
};
static const ToolArg audit_args[] = {
  { "level", ARG_INTEGER, 1, 3, "Drop caches at this level between the snapshots; none without it" },
  { "compact", ARG_BOOLEAN, 0, 0, "Also compact memory (needs level)" },
  { "wait_seconds", ARG_INTEGER, 0, MAX_WAIT_SECONDS, "Without level: seconds between the snapshots (default 0)" },
  { "top", ARG_INTEGER, 0, G_MAXINT, "Keep the N largest processes of each snapshot (default 10); the diff sees all" },
  { NULL },
};

/* The lists a result may be cut to fit (jmem_mcp_fit()): redundant and
 * long ones compete with the rest on size alone. */
static const char * const snapshot_lists[] = {
  "processes.list", "nvmap.clients", "nvmap.by_pid", "gpu.processes", "warnings", "services",
  "disks", "thermal", "accounting.notes", "findings", "headroom.holders", "headroom.zones",
  "headroom.notes", NULL,
};
static const char * const triage_lists[] = { "findings", NULL };
static const char * const headroom_lists[] = {
  "headroom.holders", "headroom.services", "headroom.zones", "headroom.actions", "headroom.notes", NULL,
};
static const char * const allocations_lists[] = {
  "totals.by_tag", "totals.by_process", "clients", NULL,
};
static const char * const drop_caches_lists[] = { "notes", NULL };
static const char * const audit_lists[] = {
  "before.processes.list", "after.processes.list", "before.nvmap.clients", "after.nvmap.clients",
  "before.nvmap.by_pid", "after.nvmap.by_pid", "before.gpu.processes", "after.gpu.processes",
  "before.warnings", "after.warnings", "before.services", "after.services",
  "before.findings", "after.findings", "before.accounting.notes", "after.accounting.notes",
  "before.headroom.holders", "after.headroom.holders", "before.headroom.zones",
  "after.headroom.zones", "before.headroom.notes", "after.headroom.notes",
  "diff.processes.changed", "diff.processes.appeared", "diff.processes.exited", NULL,
};

/* What a budgeted snapshot leaves out first, least needed first: the
 * derivations and host facts the summary and the other tools give. */
static const char * const snapshot_spare[] = {
  "headroom.terms", "memory.fields_kib", "services", "disks", "thermal", "headroom.zones",
  "nvmap.by_pid", "headroom.holders", "headroom.notes", "accounting.notes", "accounting.buckets", NULL,
};
static const char * const audit_spare[] = {
  "before.headroom.terms", "after.headroom.terms", "before.memory.fields_kib",
  "after.memory.fields_kib", "before.services", "after.services", "before.disks", "after.disks",
  "before.thermal", "after.thermal", "before.headroom.zones", "after.headroom.zones",
  "before.nvmap.by_pid", "after.nvmap.by_pid", "before.headroom.holders", "after.headroom.holders",
  "before.headroom.notes", "after.headroom.notes", "before.accounting.notes", "after.accounting.notes",
  /* the diff has every process, before and after */
  "before.processes.list", "after.processes.list", "before.accounting.buckets", "after.accounting.buckets", "before.findings", "after.findings", NULL,
};
static const char * const headroom_spare[] = { "headroom.terms", "headroom.zones", NULL };
/* a process asked for is asked for with its rows */
static const char * const snapshot_asks_more[] = { "top", "all", "pid", NULL };
static const char * const allocations_asks_more[] = { "limit", NULL };
static const char * const audit_asks_more[] = { "top", NULL };

/* The order tools/list gives. */
static const Tool tool_table[] = {
  { "snapshot", "Memory snapshot",
    "What holds memory now: processes, GPU memory, NvMap (CUDA, video and camera buffers top "
    "cannot see), where the RAM is, warnings with their fix, and triage findings.",
    snapshot_args, TRUE, run_snapshot, snapshot_lists, snapshot_spare, snapshot_asks_more, "top or all",
    RESULT_BUDGET_BYTES },
  { "triage", "Memory triage",
    "What needs attention (one process holding most GPU memory, NvMap held for exited "
    "processes, CMA exhausted, swap, heat, ...): each finding with its numbers and its action; "
    "admin: true marks an administrator's step.",
    triage_args, TRUE, run_triage, triage_lists, NULL, NULL, NULL, RESULT_BUDGET_BYTES },
  { "headroom", "Memory headroom",
    "How much a new GPU allocation (a model, a TensorRT build) can get now and after reclaim, "
    "and the largest free block. Call it before suggesting a model, batch or context size: with "
    "need, headroom.verdict says if it fits, headroom.actions what makes room, gates what each "
    "framework checks.",
    headroom_args, TRUE, run_headroom, headroom_lists, headroom_spare, NULL, NULL, RESULT_BUDGET_BYTES },
  { "allocations", "NvMap allocations",
    "The largest NvMap handles of each process (size, flags, refs, tag), and totals of all of "
    "them by process and by tag: what a GPU-memory leak is made of.",
    allocations_args, TRUE, run_allocations, allocations_lists, NULL, allocations_asks_more,
    "limit", RESULT_BUDGET_BYTES },
  { "drop_caches", "Drop kernel caches",
    "Drops the page cache and/or dentries and inodes through jmem-helper (after sync; nothing "
    "is lost) and reports memory before and after. At most once per 10 s; needs the jmem "
    "group's polkit grant, never a password.",
    drop_caches_args, FALSE, run_drop_caches, drop_caches_lists, NULL, NULL, NULL, RESULT_BUDGET_BYTES },
  { "audit", "Memory audit",
    "Snapshot, drop caches at level (or wait wait_seconds without dropping), snapshot again, and "
    "compare: what each process and the system gained or lost.",
    audit_args, FALSE, run_audit, audit_lists, audit_spare, audit_asks_more, "top",
    AUDIT_RESULT_BUDGET_BYTES },
};

void
jmem_mcp_tools_set_history (JmemMcpTools *tools, const char *path)
{
  g_free (tools->history);
  tools->history = g_strdup (path);
}

const char *
jmem_mcp_tools_names (void)
{
  static char *names;

  /* from the table tools/list gives, so messages and --help name them all */
  if (g_once_init_enter (&names))
    {
      g_autoptr(GString) all = g_string_new (NULL);

      for (gsize i = 0; i < G_N_ELEMENTS (tool_table); i++)
        g_string_append_printf (all, "%s%s", i > 0 ? ", " : "", tool_table[i].name);
      g_once_init_leave (&names, g_string_free (g_steal_pointer (&all), FALSE));
    }
  return names;
}

static const Tool *
find_tool (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (tool_table); i++)
    if (g_str_equal (tool_table[i].name, name))
      return &tool_table[i];
  return NULL;
}

static void
add_input_schema (JsonBuilder *b, const ToolArg *args)
{
  json_builder_set_member_name (b, "inputSchema");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "object");
  json_builder_set_member_name (b, "additionalProperties");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_set_member_name (b, "properties");
  json_builder_begin_object (b);
  for (const ToolArg *a = args; a->name != NULL; a++)
    {
      json_builder_set_member_name (b, a->name);
      json_builder_begin_object (b);
      /* one type per argument: a list of types is refused by single-type
       * dialects (Gemini's) and shown as its first by others (a size is a
       * string; the integer older clients send is still taken) */
      json_builder_set_member_name (b, "type");
      json_builder_add_string_value (b, a->type == ARG_INTEGER ? "integer" :
                                        a->type == ARG_BOOLEAN ? "boolean" : "string");
      if (a->type == ARG_ENUM)
        {
          json_builder_set_member_name (b, "enum");
          json_builder_begin_array (b);
          for (const char * const *c = a->choices; *c != NULL; c++)
            json_builder_add_string_value (b, *c);
          json_builder_end_array (b);
        }
      if (a->type == ARG_INTEGER)
        {
          json_builder_set_member_name (b, "minimum");
          json_builder_add_int_value (b, a->minimum);
          json_builder_set_member_name (b, "maximum");
          json_builder_add_int_value (b, a->maximum);
        }
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, a->description);
      json_builder_end_object (b);
    }
  json_builder_end_object (b);
  json_builder_end_object (b);
}

static void
add_annotations (JsonBuilder *b, const Tool *t)
{
  json_builder_set_member_name (b, "annotations");
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "title");
  json_builder_add_string_value (b, t->title);
  json_builder_set_member_name (b, "readOnlyHint");
  json_builder_add_boolean_value (b, t->read_only);
  if (!t->read_only)
    {
      /* dropping clean caches loses nothing, and twice is as once */
      json_builder_set_member_name (b, "destructiveHint");
      json_builder_add_boolean_value (b, FALSE);
      json_builder_set_member_name (b, "idempotentHint");
      json_builder_add_boolean_value (b, TRUE);
    }
  json_builder_set_member_name (b, "openWorldHint");
  json_builder_add_boolean_value (b, FALSE);
  json_builder_end_object (b);
}

JmemMcpTools *
jmem_mcp_tools_new (const char *sysroot,
                    gsize       max_result_bytes,
                    GError    **error)
{
  g_autoptr(JmemMcpTools) tools = g_new0 (JmemMcpTools, 1);
  g_autoptr(JsonBuilder) b = json_builder_new ();

  tools->boot = jmem_collect_boot_new ();
  tools->sysroot = sysroot != NULL && sysroot[0] != '\0' && !g_str_equal (sysroot, "/") ?
                   g_strdup (sysroot) : NULL;
  tools->max_result_bytes = MAX (max_result_bytes, JMEM_MCP_MIN_MAX_RESULT_BYTES);
  /* the calls share one system bus connection (jmem-system-bus.c) */
  if (tools->sysroot == NULL)
    tools->container = jmem_container_detect (NULL);

  json_builder_begin_array (b);
  for (gsize i = 0; i < G_N_ELEMENTS (tool_table); i++)
    {
      const Tool *t = &tool_table[i];
      JsonNode *schema = jmem_mcp_schema_for_tool (t->name, error);

      if (schema == NULL)
        return NULL;
      json_builder_begin_object (b);
      json_builder_set_member_name (b, "name");
      json_builder_add_string_value (b, t->name);
      json_builder_set_member_name (b, "title");
      json_builder_add_string_value (b, t->title);
      json_builder_set_member_name (b, "description");
      json_builder_add_string_value (b, t->description);
      add_input_schema (b, t->args);
      json_builder_set_member_name (b, "outputSchema");
      json_builder_add_value (b, schema);
      add_annotations (b, t);
      json_builder_end_object (b);
    }
  json_builder_end_array (b);
  tools->list = json_builder_get_root (b);
  return g_steal_pointer (&tools);
}

void
jmem_mcp_tools_free (JmemMcpTools *tools)
{
  if (tools == NULL)
    return;
  g_free (tools->sysroot);
  g_free (tools->history);
  g_free (tools->container);
  g_clear_pointer (&tools->boot, jmem_collect_boot_free);
  if (tools->list != NULL)
    json_node_unref (tools->list);
  g_free (tools);
}

JsonNode *
jmem_mcp_tools_list (JmemMcpTools   *tools,
                     JmemMcpFeatures features)
{
  JsonArray *all = json_node_get_array (tools->list);
  g_autoptr(JsonArray) list = json_array_new ();

  /* what a revision does not define, it does not get */
  for (guint i = 0; i < json_array_get_length (all); i++)
    {
      JsonObject *tool = json_array_get_object_element (all, i);
      g_autoptr(GList) members = json_object_get_members (tool);
      JsonObject *copy = json_object_new ();

      for (GList *l = members; l != NULL; l = l->next)
        {
          const char *name = l->data;

          if ((g_str_equal (name, "title") && !(features & JMEM_MCP_TITLES)) ||
              (g_str_equal (name, "outputSchema") && !(features & JMEM_MCP_STRUCTURED)) ||
              (g_str_equal (name, "annotations") && !(features & JMEM_MCP_ANNOTATIONS)))
            continue;
          json_object_set_member (copy, name, json_node_copy (json_object_get_member (tool, name)));
        }
      json_array_add_object_element (list, copy);
    }
  return json_node_init_array (json_node_alloc (), list);
}

gboolean
jmem_mcp_tools_has (JmemMcpTools *tools,
                    const char   *name)
{
  return find_tool (name) != NULL;
}

static const char *
json_type_name (JsonNode *node)
{
  if (JSON_NODE_HOLDS_OBJECT (node))
    return "an object";
  if (JSON_NODE_HOLDS_ARRAY (node))
    return "an array";
  if (JSON_NODE_HOLDS_NULL (node))
    return "null";
  switch (json_node_get_value_type (node))
    {
    case G_TYPE_STRING: return "a string";
    case G_TYPE_BOOLEAN: return "a boolean";
    case G_TYPE_DOUBLE: return "a fraction";
    default: return "a number";
    }
}

static char *
args_list (const ToolArg *args)
{
  g_autoptr(GString) names = g_string_new (NULL);

  for (const ToolArg *a = args; a->name != NULL; a++)
    g_string_append_printf (names, "%s\"%s\"", names->len > 0 ? ", " : "", a->name);
  return names->len > 0 ? g_strdup (names->str) : g_strdup ("none");
}

/* Checks @args against the tool's inputSchema; the message names the
 * argument and what it takes, so a model can correct its call. */
static gboolean
check_args (const Tool *t, JsonObject *args, GError **error)
{
  g_autoptr(GList) members = args != NULL ? json_object_get_members (args) : NULL;

  for (GList *l = members; l != NULL; l = l->next)
    {
      const char *name = l->data;
      JsonNode *value = json_object_get_member (args, name);
      const ToolArg *a = t->args;

      while (a->name != NULL && !g_str_equal (a->name, name))
        a++;
      if (a->name == NULL)
        {
          g_autofree char *known = args_list (t->args);
          g_autofree char *shown = g_strescape (name, NULL);

          g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                       "invalid arguments: %s takes no argument \"%.64s\" (it takes %s)",
                       t->name, shown, known);
          return FALSE;
        }
      if (a->type == ARG_SIZE)
        {
          g_autoptr(GError) size_error = NULL;
          guint64 bytes;

          if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
            {
              if (jmem_size_parse (json_node_get_string (value), &bytes, &size_error))
                continue;
              g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                           "invalid arguments: \"%s\" takes a size: %s", a->name, size_error->message);
              return FALSE;
            }
          if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_INT64 &&
              json_node_get_int (value) >= a->minimum && json_node_get_int (value) <= a->maximum)
            continue;
          if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_INT64)
            g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                         "invalid arguments: \"%s\" takes a size (\"6G\", \"6GiB\", \"6144M\") or a "
                         "number of bytes from 0 to 4 PiB, not %" G_GINT64_FORMAT, a->name,
                         json_node_get_int (value));
          else
            g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                         "invalid arguments: \"%s\" takes a size (\"6G\", \"6GiB\", \"6144M\") or a "
                         "number of bytes from 0 to 4 PiB, not %s", a->name, json_type_name (value));
          return FALSE;
        }
      if (a->type == ARG_ENUM)
        {
          g_autofree char *choices = g_strjoinv (", ", (char **) a->choices);

          if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING &&
              g_strv_contains (a->choices, json_node_get_string (value)))
            continue;
          if (JSON_NODE_HOLDS_VALUE (value) && json_node_get_value_type (value) == G_TYPE_STRING)
            {
              g_autofree char *shown = g_strescape (json_node_get_string (value), NULL);

              g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                           "invalid arguments: \"%s\" takes one of %s, not \"%.64s\"", a->name,
                           choices, shown);
            }
          else
            g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                         "invalid arguments: \"%s\" takes one of %s, not %s", a->name, choices,
                         json_type_name (value));
          return FALSE;
        }
      if (a->type == ARG_BOOLEAN)
        {
          if (!JSON_NODE_HOLDS_VALUE (value) || json_node_get_value_type (value) != G_TYPE_BOOLEAN)
            {
              g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                           "invalid arguments: \"%s\" takes true or false, not %s", a->name,
                           json_type_name (value));
              return FALSE;
            }
          continue;
        }
      if (JSON_NODE_HOLDS_VALUE (value) &&
          (json_node_get_value_type (value) == G_TYPE_INT64 ||
           (json_node_get_value_type (value) == G_TYPE_DOUBLE &&
            json_node_get_double (value) == floor (json_node_get_double (value)))))
        {
          double v = json_node_get_value_type (value) == G_TYPE_INT64 ?
                     (double) json_node_get_int (value) : json_node_get_double (value);

          if (v >= (double) a->minimum && v <= (double) a->maximum)
            continue;
          g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                       "invalid arguments: \"%s\" takes an integer from %" G_GINT64_FORMAT
                       " to %" G_GINT64_FORMAT ", not %.0f", a->name, a->minimum, a->maximum, v);
          return FALSE;
        }
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_INVALID_ARGUMENT,
                   "invalid arguments: \"%s\" takes an integer from %" G_GINT64_FORMAT
                   " to %" G_GINT64_FORMAT ", not %s", a->name, a->minimum, a->maximum,
                   json_type_name (value));
      return FALSE;
    }
  return TRUE;
}

static JsonNode *
text_result (const char *text, JsonNode *structured, gboolean is_error)
{
  g_autoptr(JsonBuilder) b = json_builder_new ();

  json_builder_begin_object (b);
  json_builder_set_member_name (b, "content");
  json_builder_begin_array (b);
  json_builder_begin_object (b);
  json_builder_set_member_name (b, "type");
  json_builder_add_string_value (b, "text");
  json_builder_set_member_name (b, "text");
  json_builder_add_string_value (b, text);
  json_builder_end_object (b);
  json_builder_end_array (b);
  if (structured != NULL)
    {
      json_builder_set_member_name (b, "structuredContent");
      json_builder_add_value (b, structured);
    }
  json_builder_set_member_name (b, "isError");
  json_builder_add_boolean_value (b, is_error);
  json_builder_end_object (b);
  return json_builder_get_root (b);
}

JsonNode *
jmem_mcp_tools_error_result (const char *text)
{
  return text_result (text, NULL, TRUE);
}

/* The result of a tool that ran. A client gives its model either the text
 * block or structuredContent: where the revision has structuredContent it
 * holds the document and the text its summary and key figures; before, the
 * text is the document. */
static JsonNode *
document_result (Call *call, JsonNode *doc)
{
  g_autofree char *text = NULL;

  if (!(call->features & JMEM_MCP_STRUCTURED))
    {
      text = json_to_string (doc, FALSE);
      return text_result (text, NULL, FALSE);
    }
  text = jmem_mcp_brief_text (json_node_get_object (doc), call->figures);
  return text_result (text, json_node_copy (doc), FALSE);
}

/* Whether @args ask for more than a default result: the budget then gives
 * way to the server's result limit. */
static gboolean
asks_more (const Tool *t, JsonObject *args)
{
  for (gsize i = 0; t->asks_more != NULL && t->asks_more[i] != NULL; i++)
    if (arg_given (args, t->asks_more[i]))
      return TRUE;
  return FALSE;
}

static gsize
measure_result (JsonNode *doc, gpointer data)
{
  Call *call = data;
  g_autoptr(JsonNode) result = document_result (data, doc);
  g_autoptr(JmemJsonWriter) writer = jmem_json_writer_new (FALSE);
  g_autofree char *text = NULL;

  if (call->budget)
    {
      JsonObject *r = json_node_get_object (result);
      JsonArray *content = json_object_get_array_member (r, "content");
      gsize text_bytes = strlen (json_object_get_string_member (json_array_get_object_element (content, 0), "text"));

      if (json_object_has_member (r, "structuredContent"))
        {
          jmem_json_writer_add_node (writer, json_object_get_member (r, "structuredContent"));
          text = jmem_json_writer_free_to_string (g_steal_pointer (&writer));
        }
      return MAX (text_bytes, text != NULL ? strlen (text) : 0);
    }

  /* as jmem-mcp.c sends it */
  jmem_mcp_revision_finish_result (result, ((Call *) data)->features);
  jmem_json_writer_add_node (writer, result);
  text = jmem_json_writer_free_to_string (g_steal_pointer (&writer));
  return strlen (text);
}

JsonNode *
jmem_mcp_tools_call (JmemMcpTools   *tools,
                     const char     *name,
                     JsonObject     *arguments,
                     JmemMcpFeatures features,
                     GCancellable   *cancellable)
{
  const Tool *t = find_tool (name);
  Call call = { .tools = tools, .tool = t, .limit = tools->max_result_bytes, .features = features,
                .cancellable = cancellable };
  g_autoptr(GError) error = NULL;
  g_autoptr(JsonNode) doc = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *figures = NULL;

  g_return_val_if_fail (t != NULL, NULL);
  if (!check_args (t, arguments, &error))
    return text_result (error->message, NULL, TRUE);
  call.budget = !asks_more (t, arguments);
  if (call.budget)
    call.limit = MIN (call.limit, t->budget);
  doc = t->run (&call, arguments, &error);
  if (doc == NULL)
    return text_result (error->message, NULL, TRUE);
  /* of the whole document, before anything is cut */
  summary = jmem_mcp_brief_summary (t->name, json_node_get_object (doc));
  json_object_set_string_member (json_node_get_object (doc), "summary", summary);
  figures = jmem_mcp_brief_figures (t->name, json_node_get_object (doc));
  call.figures = figures;
  /* what a model reads says how to get the rest */
  if (call.budget && t->more != NULL && measure_result (doc, &call) > call.limit)
    {
      g_autofree char *hint = g_strdup_printf ("%s Shortened to %" G_GSIZE_FORMAT " bytes (cut); "
                                               "call with %s for the whole.", summary, call.limit,
                                               t->more);

      json_object_set_string_member (json_node_get_object (doc), "summary", hint);
    }
  if (call.budget)
    jmem_mcp_fit_spare (doc, t->spare, call.limit, measure_result, &call);
  if (!jmem_mcp_fit (doc, t->cut_lists, call.limit, measure_result, &call))
    {
      g_autofree char *text = g_strdup_printf (
        "the answer of %s takes more than %" G_GSIZE_FORMAT " bytes even with every list and "
        "string cut\nTo fix: ask for less (a pid, a smaller top or limit)", t->name,
        call.limit);

      return text_result (text, NULL, TRUE);
    }
  return document_result (&call, doc);
}
