/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Parsers for /sys/kernel/debug/nvmap/iovmm/{clients,allocations} and
 * stats/total_memory. The formats and how ambiguities are resolved are
 * described in docs/nvmap-formats.md. */
#include "jmem-nvmap.h"

#include <string.h>

#include "jmem-error.h"
#include "jmem-text.h"

/* The kernel prints each client as "%-18s %18s %8u %10lluK\n": byte offsets
 * of every field are fixed, whatever bytes the process name holds. */
#define CLIENT_W     18
#define PROCESS_COL  19
#define PROCESS_W    18
#define PID_COL      38
#define PID_W        8
#define SIZE_COL     47
#define SIZE_W       10
#define K_COL        57
#define RECORD_LEN   59  /* including the newline */
#define COMM_MAX     15  /* TASK_COMM_LEN - 1 */

/* Handle rows start with two empty columns: "%-18s %-18s " of "". */
#define HANDLE_INDENT 38

const char *
jmem_nvmap_layout_to_string (JmemNvmapLayout layout)
{
  switch (layout)
    {
    case JMEM_NVMAP_LAYOUT_KERNEL:
      return "kernel";
    case JMEM_NVMAP_LAYOUT_KERNEL_NOTE:
      return "kernel-note";
    case JMEM_NVMAP_LAYOUT_LOOSE:
      return "loose";
    case JMEM_NVMAP_LAYOUT_UNKNOWN:
    default:
      return "unknown";
    }
}

void
jmem_nvmap_client_free (JmemNvmapClient *client)
{
  if (client == NULL)
    return;
  g_free (client->client);
  g_free (client->process);
  g_free (client);
}

void
jmem_nvmap_clients_free (JmemNvmapClients *clients)
{
  if (clients == NULL)
    return;
  g_clear_pointer (&clients->clients, g_ptr_array_unref);
  g_free (clients);
}

void
jmem_nvmap_handle_free (JmemNvmapHandle *handle)
{
  if (handle == NULL)
    return;
  g_free (handle->tag);
  g_free (handle);
}

static void
client_handles_free (JmemNvmapClientHandles *ch)
{
  jmem_nvmap_client_free (ch->client);
  g_clear_pointer (&ch->handles, g_ptr_array_unref);
  g_free (ch);
}

void
jmem_nvmap_allocations_free (JmemNvmapAllocations *allocations)
{
  if (allocations == NULL)
    return;
  g_clear_pointer (&allocations->clients, g_ptr_array_unref);
  g_free (allocations);
}

/* ---- numbers ---------------------------------------------------------- */

static gboolean
is_blank (char c)
{
  return c == ' ' || c == '\t';
}

/* A right-justified number filling exactly @w bytes: spaces, then digits. */
static gboolean
parse_right_justified (const char *s, gsize w, guint64 max, guint64 *out)
{
  gsize i = 0;

  while (i < w && s[i] == ' ')
    i++;
  return jmem_text_parse_decimal (s + i, w - i, max, out);
}

/* "<digits>K" */
static gboolean
parse_kib (const char *s, gsize n, guint64 *out)
{
  return n >= 2 && s[n - 1] == 'K' && jmem_text_parse_decimal (s, n - 1, G_MAXUINT64, out);
}

static gboolean
all_blank (const char *s, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!is_blank (s[i]))
      return FALSE;
  return TRUE;
}

/* ---- one client row --------------------------------------------------- */

typedef enum {
  LINE_NONE,
  LINE_ROW,
  LINE_TOTAL,
} LineKind;

typedef struct {
  LineKind kind;
  char    *client;   /* owned */
  char    *process;  /* owned */
  guint32  pid;
  guint64  size_kib;
} RowResult;

JmemNvmapClient *
jmem_nvmap_client_new (const char *client,
                       const char *process,
                       guint32     pid,
                       guint64     size_kib)
{
  JmemNvmapClient *c = g_new0 (JmemNvmapClient, 1);

  c->client = g_strdup (client);
  c->process = g_strdup (process);
  c->pid = pid;
  c->size_kib = size_kib;
  return c;
}

static void
row_result_clear (RowResult *r)
{
  g_clear_pointer (&r->client, g_free);
  g_clear_pointer (&r->process, g_free);
}

static JmemNvmapClient *
row_result_steal (RowResult *r)
{
  JmemNvmapClient *c = g_new0 (JmemNvmapClient, 1);

  c->client = g_steal_pointer (&r->client);
  c->process = g_steal_pointer (&r->process);
  c->pid = r->pid;
  c->size_kib = r->size_kib;
  return c;
}

/* Matches one record in the kernel's fixed columns at @p. The PROCESS field
 * is taken by offset, so a comm holding spaces, digits or a newline cannot
 * move the PID or SIZE. Returns the bytes consumed, 0 when @p is not such a
 * record. */
static gsize
match_fixed (const char *p, gsize avail, RowResult *r)
{
  gsize rec;
  gsize client_len = 0;
  gsize proc_start = PROCESS_COL;
  guint64 pid = 0, size = 0;
  gboolean pid_blank;

  if (avail >= RECORD_LEN && p[RECORD_LEN - 1] == '\n')
    rec = RECORD_LEN;
  else if (avail == RECORD_LEN - 1)
    rec = RECORD_LEN - 1;  /* last record, newline missing */
  else
    return 0;

  if (is_blank (p[0]) || p[CLIENT_W] != ' ' || p[PID_COL - 1] != ' ' ||
      p[SIZE_COL - 1] != ' ' || p[K_COL] != 'K')
    return 0;

  /* CLIENT: one word, left-justified, space padded. */
  while (client_len < CLIENT_W && p[client_len] != ' ')
    {
      if (p[client_len] == '\n' || p[client_len] == '\0' || p[client_len] == '\t')
        return 0;
      client_len++;
    }
  if (!all_blank (p + client_len, CLIENT_W - client_len) ||
      memchr (p + client_len, '\t', CLIENT_W - client_len) != NULL)
    return 0;

  /* PROCESS: at most COMM_MAX bytes, so its first bytes are padding. */
  for (gsize i = 0; i < PROCESS_W - COMM_MAX; i++)
    if (p[PROCESS_COL + i] != ' ')
      return 0;
  while (proc_start < PROCESS_COL + PROCESS_W && p[proc_start] == ' ')
    proc_start++;

  pid_blank = all_blank (p + PID_COL, PID_W) && memchr (p + PID_COL, '\t', PID_W) == NULL;
  if (!pid_blank && !parse_right_justified (p + PID_COL, PID_W, G_MAXUINT32, &pid))
    return 0;
  if (!parse_right_justified (p + SIZE_COL, SIZE_W, G_MAXUINT64, &size))
    return 0;

  if (client_len == 5 && memcmp (p, "total", 5) == 0)
    {
      /* "%-18s %18s %8s %10lluK": empty PROCESS and PID. */
      if (proc_start != PROCESS_COL + PROCESS_W || !pid_blank)
        return 0;
      r->kind = LINE_TOTAL;
      r->size_kib = size;
      return rec;
    }
  if (pid_blank)
    return 0;

  r->kind = LINE_ROW;
  r->client = jmem_text_make_valid (p, (gssize) client_len);
  r->process = jmem_text_make_valid (p + proc_start,
                                     (gssize) (PROCESS_COL + PROCESS_W - proc_start));
  r->pid = (guint32) pid;
  r->size_kib = size;
  return rec;
}

typedef struct {
  const char *s;
  gsize       len;
} Span;

/* Whitespace fallback for one line: first token CLIENT, last "<digits>K"
 * SIZE, the token before it PID, the text between PROCESS. Used only for
 * lines that are not in the fixed columns (documentation examples, values
 * wider than their column). */
static gboolean
match_loose (const char *line, gsize len, RowResult *r)
{
  gsize client_end = 0, proc_start, z0, z1 = len, y0, y1;
  guint64 size = 0, pid = 0;

  while (z1 > 0 && is_blank (line[z1 - 1]))
    z1--;
  if (z1 == 0 || is_blank (line[0]))
    return FALSE;  /* a row starts with its CLIENT word */

  while (client_end < z1 && !is_blank (line[client_end]))
    client_end++;
  z0 = z1;
  while (z0 > client_end && !is_blank (line[z0 - 1]))
    z0--;
  if (z0 == client_end || !parse_kib (line + z0, z1 - z0, &size))
    return FALSE;

  y1 = z0;
  while (y1 > client_end && is_blank (line[y1 - 1]))
    y1--;

  if (client_end == 5 && memcmp (line, "total", 5) == 0)
    {
      if (y1 != client_end)
        return FALSE;
      r->kind = LINE_TOTAL;
      r->size_kib = size;
      return TRUE;
    }

  y0 = y1;
  while (y0 > client_end && !is_blank (line[y0 - 1]))
    y0--;
  if (y0 == client_end || !jmem_text_parse_decimal (line + y0, y1 - y0, G_MAXUINT32, &pid))
    return FALSE;

  /* PROCESS: everything between CLIENT and PID, without the padding. */
  proc_start = client_end;
  while (proc_start < y0 && is_blank (line[proc_start]))
    proc_start++;
  while (y0 > proc_start && is_blank (line[y0 - 1]))
    y0--;

  r->kind = LINE_ROW;
  r->client = jmem_text_make_valid (line, (gssize) client_end);
  r->process = jmem_text_make_valid (line + proc_start, (gssize) (y0 - proc_start));
  r->pid = (guint32) pid;
  r->size_kib = size;
  return TRUE;
}

/* ---- walking the file ------------------------------------------------- */

/* "%-18s %18s %8s %11s" of CLIENT, PROCESS, PID, SIZE. */
static const char kernel_header[] =
  "CLIENT                        PROCESS      PID        SIZE";

typedef struct {
  const char *data;
  gsize       len;
  gsize       pos;
} Cursor;

typedef struct {
  gboolean seen_header;
  gboolean kernel_header;
  gboolean seen_note;
  gboolean has_total;
  guint64  total_kib;
  guint    n_fixed;
  guint    n_loose;
  guint    n_malformed;
} ParseState;

static void
next_line (Cursor *c, const char **line, gsize *line_len)
{
  const char *p = c->data + c->pos;
  gsize avail = c->len - c->pos;
  const char *nl = memchr (p, '\n', avail);

  *line = p;
  *line_len = nl != NULL ? (gsize) (nl - p) : avail;
  c->pos += nl != NULL ? *line_len + 1 : avail;
}

/* Reads a client row or the total line at the cursor, fixed columns first.
 * Returns LINE_NONE, leaving the cursor alone, for anything else. */
static LineKind
read_row (Cursor *c, ParseState *st, RowResult *r)
{
  const char *p = c->data + c->pos;
  gsize avail = c->len - c->pos;
  const char *nl;
  gsize line_len, n;

  if (avail == 0 || is_blank (p[0]) || p[0] == '\n')
    return LINE_NONE;

  n = match_fixed (p, avail, r);
  if (n > 0)
    {
      c->pos += n;
      st->n_fixed++;
      return r->kind;
    }

  nl = memchr (p, '\n', avail);
  line_len = nl != NULL ? (gsize) (nl - p) : avail;
  /* Under the kernel's header every row is padded to at least the fixed
   * width; a shorter line is not a row. This keeps a short user-controlled
   * text (an allocation tag holding a newline) from posing as a client. */
  if (st->kernel_header && line_len < RECORD_LEN - 1)
    return LINE_NONE;
  if (!match_loose (p, line_len, r))
    {
      row_result_clear (r);
      return LINE_NONE;
    }
  c->pos += nl != NULL ? line_len + 1 : line_len;
  st->n_loose++;
  return r->kind;
}

static void
note_total (ParseState *st, guint64 kib)
{
  if (st->has_total)
    {
      st->n_malformed++;  /* a second total: keep the first */
      return;
    }
  st->has_total = TRUE;
  st->total_kib = kib;
}

static gboolean
first_word_is (const char *line, gsize len, const char *word)
{
  gsize i = 0, n = strlen (word);

  while (i < len && is_blank (line[i]))
    i++;
  return len - i >= n && memcmp (line + i, word, n) == 0 &&
         (len - i == n || is_blank (line[i + n]));
}

/* Lines that are neither rows nor handles. */
static void
classify_other (ParseState *st, const char *line, gsize len)
{
  if (all_blank (line, len))
    return;
  if (first_word_is (line, len, "CLIENT"))
    {
      st->seen_header = TRUE;
      if (len == sizeof kernel_header - 1 && memcmp (line, kernel_header, len) == 0)
        st->kernel_header = TRUE;
      return;
    }
  /* 2011-2014 kernels explain after the total why rows do not add up. */
  if (st->has_total && len >= 5 && memcmp (line, "Note:", 5) == 0)
    {
      st->seen_note = TRUE;
      return;
    }
  st->n_malformed++;
}

static JmemNvmapLayout
layout_of (const ParseState *st)
{
  if (st->seen_note)
    return JMEM_NVMAP_LAYOUT_KERNEL_NOTE;
  if (st->n_fixed > 0 || (st->kernel_header && st->n_loose == 0 && st->has_total))
    return JMEM_NVMAP_LAYOUT_KERNEL;
  if (st->n_loose > 0)
    return JMEM_NVMAP_LAYOUT_LOOSE;
  return JMEM_NVMAP_LAYOUT_UNKNOWN;
}

JmemNvmapClients *
jmem_nvmap_clients_parse (const char *data,
                          gsize       len,
                          GError    **error)
{
  g_autoptr(JmemNvmapClients) out = NULL;
  ParseState st = { 0 };
  Cursor c = { data, len, 0 };

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (len == 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "NvMap iovmm/clients is empty");
      return NULL;
    }

  out = g_new0 (JmemNvmapClients, 1);
  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_client_free);

  while (c.pos < c.len && !st.seen_note)
    {
      RowResult r = { 0 };
      const char *line;
      gsize line_len;

      switch (read_row (&c, &st, &r))
        {
        case LINE_ROW:
          g_ptr_array_add (out->clients, row_result_steal (&r));
          continue;
        case LINE_TOTAL:
          note_total (&st, r.size_kib);
          continue;
        case LINE_NONE:
        default:
          break;
        }
      next_line (&c, &line, &line_len);
      classify_other (&st, line, line_len);
    }

  if (!st.seen_header && out->clients->len == 0 && !st.has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/clients file: no \"CLIENT PROCESS PID SIZE\" "
                           "header, client row or total line");
      return NULL;
    }

  out->has_total = st.has_total;
  out->total_kib = st.total_kib;
  out->n_malformed = st.n_malformed;
  out->layout = layout_of (&st);
  return g_steal_pointer (&out);
}

/* ---- allocations ------------------------------------------------------ */

typedef struct {
  gboolean seen;
  gboolean has_maps;  /* KMAPS UMAPS SHARE: absent on 2011-2014 kernels */
  gboolean has_huge;  /* FROM_HUGETLBFS: 2025 driver */
} HandleColumns;

static gboolean
next_token (const char *line, gsize len, gsize *i, Span *tok)
{
  gsize start;

  while (*i < len && is_blank (line[*i]))
    (*i)++;
  if (*i >= len)
    return FALSE;
  start = *i;
  while (*i < len && !is_blank (line[*i]))
    (*i)++;
  *tok = (Span) { line + start, *i - start };
  return TRUE;
}

static gboolean
span_is (Span t, const char *word)
{
  return t.len == strlen (word) && memcmp (t.s, word, t.len) == 0;
}

/* The second header: "BASE SIZE FLAGS REFS DUPES PINS [KMAPS UMAPS SHARE] UID [FROM_HUGETLBFS]". */
static gboolean
is_handle_header (const char *line, gsize len)
{
  gsize i = 0;
  Span t;

  return next_token (line, len, &i, &t) && span_is (t, "BASE");
}

static void
parse_handle_header (const char *line, gsize len, HandleColumns *cols)
{
  gsize i = 0;
  Span t;

  cols->seen = TRUE;
  cols->has_maps = FALSE;
  cols->has_huge = FALSE;
  while (next_token (line, len, &i, &t))
    {
      if (span_is (t, "KMAPS"))
        cols->has_maps = TRUE;
      else if (span_is (t, "FROM_HUGETLBFS"))
        cols->has_huge = TRUE;
    }
}

static gboolean
next_u32 (const char *line, gsize len, gsize *i, guint32 *out)
{
  Span t;
  guint64 v;

  if (!next_token (line, len, i, &t) || !jmem_text_parse_decimal (t.s, t.len, G_MAXUINT32, &v))
    return FALSE;
  *out = (guint32) v;
  return TRUE;
}

/* "%-18s %-18s %8llx %10zuK %8x %6u %6u %6u %6u %6u %6u %8pK [%6u ]%s": the
 * numbers are read as tokens (a wide BASE may overflow its column), the tag
 * is the rest of the line after one space. */
static JmemNvmapHandle *
parse_handle (const char *line, gsize len, const HandleColumns *cols)
{
  JmemNvmapHandle h = { 0 };
  gsize i = HANDLE_INDENT;
  guint64 v;
  Span t;

  if (len < HANDLE_INDENT || !all_blank (line, HANDLE_INDENT))
    return NULL;

  if (!next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT64, &h.base))
    return NULL;
  if (!next_token (line, len, &i, &t) || !parse_kib (t.s, t.len, &h.size_kib))
    return NULL;
  if (!next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT32, &v))
    return NULL;
  h.flags = (guint32) v;
  if (!next_u32 (line, len, &i, &h.refs) ||
      !next_u32 (line, len, &i, &h.dupes) ||
      !next_u32 (line, len, &i, &h.pins))
    return NULL;
  if (cols->has_maps &&
      (!next_u32 (line, len, &i, &h.kmaps) ||
       !next_u32 (line, len, &i, &h.umaps) ||
       !next_u32 (line, len, &i, &h.share)))
    return NULL;
  /* UID: a kernel pointer (%pK), hashed or zeroed; dropped. */
  if (!next_token (line, len, &i, &t))
    return NULL;
  h.from_hugetlbfs = -1;
  if (cols->has_huge)
    {
      if (!next_token (line, len, &i, &t) || !jmem_text_parse_decimal (t.s, t.len, 1, &v))
        return NULL;
      h.from_hugetlbfs = (gint32) v;
    }
  if (i < len)
    i++;  /* the one space before the tag */

  {
    JmemNvmapHandle *out = g_new (JmemNvmapHandle, 1);

    *out = h;
    out->tag = jmem_text_make_valid (line + i, (gssize) (len - i));
    return out;
  }
}

static JmemNvmapClientHandles *
client_handles_new (JmemNvmapClient *client)
{
  JmemNvmapClientHandles *ch = g_new0 (JmemNvmapClientHandles, 1);

  ch->client = client;
  ch->handles = g_ptr_array_new_with_free_func ((GDestroyNotify) jmem_nvmap_handle_free);
  return ch;
}

static void
collect_client (JmemNvmapClient *client,
                gpointer         user_data)
{
  JmemNvmapAllocations *out = user_data;

  g_ptr_array_add (out->clients, client_handles_new (client));
}

static void
collect_handle (JmemNvmapHandle *handle,
                gpointer         user_data)
{
  JmemNvmapAllocations *out = user_data;
  JmemNvmapClientHandles *cur = g_ptr_array_index (out->clients, out->clients->len - 1);

  g_ptr_array_add (cur->handles, handle);
}

const JmemNvmapAllocationsVisitor *
jmem_nvmap_allocations_collector (void)
{
  static const JmemNvmapAllocationsVisitor collect = { collect_client, collect_handle };

  return &collect;
}

JmemNvmapAllocations *
jmem_nvmap_allocations_new (void)
{
  JmemNvmapAllocations *out = g_new0 (JmemNvmapAllocations, 1);

  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_handles_free);
  return out;
}

JmemNvmapAllocations *
jmem_nvmap_allocations_parse (const char *data,
                              gsize       len,
                              GError    **error)
{
  g_autoptr(JmemNvmapAllocations) out = jmem_nvmap_allocations_new ();

  if (!jmem_nvmap_allocations_visit (data, len, jmem_nvmap_allocations_collector (), out, out,
                                     error))
    return NULL;
  return g_steal_pointer (&out);
}

/* ---- allocations, in pieces ------------------------------------------ */

struct _JmemNvmapAllocationsParser {
  const JmemNvmapAllocationsVisitor *visitor;
  gpointer      user_data;
  HandleColumns cols;
  ParseState    st;
  gboolean      in_client;
  gboolean      seen_bytes;
  guint         n_clients;
  gsize         n_handles;
};

JmemNvmapAllocationsParser *
jmem_nvmap_allocations_parser_new (const JmemNvmapAllocationsVisitor *visitor,
                                   gpointer                           user_data)
{
  JmemNvmapAllocationsParser *p = g_new0 (JmemNvmapAllocationsParser, 1);

  g_return_val_if_fail (visitor != NULL, NULL);
  p->visitor = visitor;
  p->user_data = user_data;
  p->cols = (HandleColumns) { FALSE, TRUE, FALSE };
  return p;
}

void
jmem_nvmap_allocations_parser_free (JmemNvmapAllocationsParser *parser)
{
  g_free (parser);
}

/* Whether the bytes at the cursor hold all that one step reads: a fixed
 * record is RECORD_LEN bytes (its PROCESS may hold a newline), any other
 * row ends at the first newline. */
static gboolean
step_complete (const Cursor *c)
{
  gsize avail = c->len - c->pos;

  return avail >= RECORD_LEN && memchr (c->data + c->pos, '\n', avail) != NULL;
}

/* One row, header or other line at the cursor. */
static void
parse_step (JmemNvmapAllocationsParser *p, Cursor *c)
{
  RowResult r = { 0 };
  JmemNvmapHandle *h;
  const char *line;
  gsize line_len;

  switch (read_row (c, &p->st, &r))
    {
    case LINE_ROW:
      p->visitor->client (row_result_steal (&r), p->user_data);
      p->in_client = TRUE;
      p->n_clients++;
      return;
    case LINE_TOTAL:
      note_total (&p->st, r.size_kib);
      p->in_client = FALSE;
      return;
    case LINE_NONE:
    default:
      break;
    }

  next_line (c, &line, &line_len);
  if (all_blank (line, line_len))
    {
      p->in_client = FALSE;  /* the kernel ends each client with a blank line */
      return;
    }
  if (is_blank (line[0]))
    {
      if (is_handle_header (line, line_len))
        {
          /* The kernel prints it once, before any handle; a later one
           * would give earlier handles different columns. */
          if (p->cols.seen || p->n_handles > 0)
            p->st.n_malformed++;
          else
            parse_handle_header (line, line_len, &p->cols);
          return;
        }
      if (p->in_client && (h = parse_handle (line, line_len, &p->cols)) != NULL)
        {
          p->visitor->handle (h, p->user_data);
          p->n_handles++;
          return;
        }
      p->st.n_malformed++;
      return;
    }
  classify_other (&p->st, line, line_len);
}

gsize
jmem_nvmap_allocations_parser_feed (JmemNvmapAllocationsParser *parser,
                                    const char                 *data,
                                    gsize                       len,
                                    gboolean                    at_end)
{
  Cursor c = { data, len, 0 };

  g_return_val_if_fail (parser != NULL, 0);
  g_return_val_if_fail (data != NULL || len == 0, 0);

  parser->seen_bytes |= len > 0;
  while (c.pos < c.len && !parser->st.seen_note)
    {
      /* A step reads no further than the file's own bytes would let it:
       * the same rows whatever pieces the file comes in. */
      if (!at_end && !step_complete (&c))
        return c.pos;
      parse_step (parser, &c);
    }
  /* After the note, nothing more is read. */
  return len;
}

gboolean
jmem_nvmap_allocations_parser_done (const JmemNvmapAllocationsParser *parser)
{
  return parser->st.seen_note;
}

gboolean
jmem_nvmap_allocations_parser_finish (JmemNvmapAllocationsParser *parser,
                                      JmemNvmapAllocations       *summary,
                                      GError                    **error)
{
  const ParseState *st = &parser->st;

  g_return_val_if_fail (summary != NULL, FALSE);

  if (!parser->seen_bytes)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "NvMap iovmm/allocations is empty");
      return FALSE;
    }
  if (!st->seen_header && !parser->cols.seen && parser->n_clients == 0 && !st->has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/allocations file: no \"CLIENT PROCESS PID SIZE\" "
                           "or \"BASE SIZE FLAGS ...\" header, client row or total line");
      return FALSE;
    }

  summary->has_total = st->has_total;
  summary->total_kib = st->total_kib;
  summary->n_malformed = st->n_malformed;
  summary->has_hugetlbfs_column = parser->cols.has_huge;
  summary->has_map_columns = parser->cols.has_maps;
  summary->layout = layout_of (st);
  return TRUE;
}

gboolean
jmem_nvmap_allocations_visit (const char                        *data,
                              gsize                              len,
                              const JmemNvmapAllocationsVisitor *visitor,
                              gpointer                           user_data,
                              JmemNvmapAllocations              *summary,
                              GError                           **error)
{
  g_autoptr(JmemNvmapAllocationsParser) parser = NULL;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (visitor != NULL && summary != NULL, FALSE);

  parser = jmem_nvmap_allocations_parser_new (visitor, user_data);
  (void) jmem_nvmap_allocations_parser_feed (parser, data, len, TRUE);
  return jmem_nvmap_allocations_parser_finish (parser, summary, error);
}

/* ---- maps -------------------------------------------------------------- */

static void
client_maps_free (JmemNvmapClientMaps *cm)
{
  jmem_nvmap_client_free (cm->client);
  g_clear_pointer (&cm->vmas, g_array_unref);
  g_free (cm);
}

void
jmem_nvmap_maps_free (JmemNvmapMaps *maps)
{
  if (maps == NULL)
    return;
  g_clear_pointer (&maps->clients, g_ptr_array_unref);
  g_free (maps);
}

void
jmem_nvmap_extras_clear (JmemNvmapExtras *extras)
{
  g_clear_pointer (&extras->maps, jmem_nvmap_maps_free);
  extras->free_size_bytes = extras->pool_pages = extras->pool_to_zero = extras->page_size = -1;
}

/* A VMA row: "%-12lx-%12lx %6lluK" after blank columns. The start is
 * left-justified and the end right-justified, so spaces may surround the
 * dash of a short address. */
static gboolean
parse_vma (const char *line, gsize len, JmemNvmapVma *vma)
{
  const char *dash = memchr (line, '-', len);
  gsize a = 0, a_end, b, b_end, k;
  guint64 kib;

  if (dash == NULL)
    return FALSE;
  while (a < len && is_blank (line[a]))
    a++;
  a_end = (gsize) (dash - line);
  while (a_end > a && is_blank (line[a_end - 1]))
    a_end--;
  b = (gsize) (dash - line) + 1;
  while (b < len && is_blank (line[b]))
    b++;
  b_end = b;
  while (b_end < len && !is_blank (line[b_end]))
    b_end++;
  k = b_end;
  while (k < len && is_blank (line[k]))
    k++;
  {
    gsize k_end = k;

    while (k_end < len && !is_blank (line[k_end]))
      k_end++;
    if (!all_blank (line + k_end, len - k_end) ||
        !jmem_text_parse_hex (line + a, a_end - a, G_MAXUINT64, &vma->start) ||
        !jmem_text_parse_hex (line + b, b_end - b, G_MAXUINT64, &vma->end) ||
        !parse_kib (line + k, k_end - k, &kib) || vma->end <= vma->start)
      return FALSE;
  }
  return TRUE;
}

/* A handle row: "%8llx %10zuK %8x %6u %16pK %12s %12s %6lluK": BASE, SIZE,
 * FLAGS, SHARE, UID, then the mapped size (the two %12s are empty). */
static gboolean
parse_maps_handle (const char *line, gsize len, guint64 *mapped_kib)
{
  gsize i = HANDLE_INDENT;
  guint64 v;
  Span t;

  if (!next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT64, &v) ||
      !next_token (line, len, &i, &t) || !parse_kib (t.s, t.len, &v) ||
      !next_token (line, len, &i, &t) || !jmem_text_parse_hex (t.s, t.len, G_MAXUINT32, &v) ||
      !next_token (line, len, &i, &t) || !jmem_text_parse_decimal (t.s, t.len, G_MAXUINT32, &v) ||
      !next_token (line, len, &i, &t) ||  /* UID: a kernel pointer, dropped */
      !next_token (line, len, &i, &t) || !parse_kib (t.s, t.len, mapped_kib))
    return FALSE;
  return !next_token (line, len, &i, &t);
}

static JmemNvmapClientMaps *
client_maps_new (JmemNvmapClient *client)
{
  JmemNvmapClientMaps *cm = g_new0 (JmemNvmapClientMaps, 1);

  cm->client = client;
  cm->vmas = g_array_new (FALSE, FALSE, sizeof (JmemNvmapVma));
  return cm;
}

JmemNvmapMaps *
jmem_nvmap_maps_parse (const char *data,
                       gsize       len,
                       GError    **error)
{
  g_autoptr(JmemNvmapMaps) out = NULL;
  JmemNvmapClientMaps *cur = NULL;
  gboolean seen_handle_header = FALSE, in_handle = FALSE;
  ParseState st = { 0 };
  Cursor c = { data, len, 0 };

  g_return_val_if_fail (data != NULL || len == 0, NULL);

  if (len == 0)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED, "NvMap iovmm/maps is empty");
      return NULL;
    }
  out = g_new0 (JmemNvmapMaps, 1);
  out->clients = g_ptr_array_new_with_free_func ((GDestroyNotify) client_maps_free);

  while (c.pos < c.len && !st.seen_note)
    {
      RowResult r = { 0 };
      const char *line;
      gsize line_len;
      guint64 mapped;
      JmemNvmapVma vma;

      switch (read_row (&c, &st, &r))
        {
        case LINE_ROW:
          cur = client_maps_new (row_result_steal (&r));
          g_ptr_array_add (out->clients, cur);
          in_handle = FALSE;
          continue;
        case LINE_TOTAL:
          note_total (&st, r.size_kib);
          cur = NULL;
          continue;
        case LINE_NONE:
        default:
          break;
        }

      next_line (&c, &line, &line_len);
      if (all_blank (line, line_len))
        {
          cur = NULL;  /* each client ends with a blank line */
          continue;
        }
      if (!is_blank (line[0]))
        {
          classify_other (&st, line, line_len);
          continue;
        }
      if (is_handle_header (line, line_len))
        {
          if (seen_handle_header)
            st.n_malformed++;
          seen_handle_header = TRUE;
          continue;
        }
      if (cur != NULL && line_len >= HANDLE_INDENT && all_blank (line, HANDLE_INDENT))
        {
          if (memchr (line, '-', line_len) == NULL &&
              parse_maps_handle (line, line_len, &mapped))
            {
              cur->mapped_kib = cur->mapped_kib > G_MAXUINT64 - mapped
                                ? G_MAXUINT64 : cur->mapped_kib + mapped;
              cur->n_handles++;
              in_handle = TRUE;
              continue;
            }
          if (in_handle && parse_vma (line, line_len, &vma))
            {
              g_array_append_val (cur->vmas, vma);
              continue;
            }
        }
      st.n_malformed++;
    }

  if (!st.seen_header && !seen_handle_header && out->clients->len == 0 && !st.has_total)
    {
      g_set_error_literal (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                           "Not an NvMap iovmm/maps file: no \"CLIENT PROCESS PID SIZE\" "
                           "or \"BASE SIZE FLAGS SHARE UID MAPS MAPSIZE\" header, client row "
                           "or total line");
      return NULL;
    }
  out->has_total = st.has_total;
  out->total_kib = st.total_kib;
  out->n_malformed = st.n_malformed;
  out->layout = layout_of (&st);
  return g_steal_pointer (&out);
}

/* ---- single numbers: stats/total_memory, free_size, page-pool counters -- */

/* The one decimal number @data holds, spaces around it allowed. @what names
 * the file in errors. */
static gboolean
parse_one_number (const char *data,
                  gsize       len,
                  const char *what,
                  const char *expected,
                  guint64    *value,
                  GError    **error)
{
  gsize start = 0, end = len;

  while (start < end && g_ascii_isspace (data[start]))
    start++;
  while (end > start && g_ascii_isspace (data[end - 1]))
    end--;

  if (start == end)
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "NvMap %s is empty; expected %s", what, expected);
      return FALSE;
    }
  for (gsize i = start; i < end; i++)
    {
      if (!g_ascii_isdigit (data[i]))
        {
          g_autofree char *valid = jmem_text_make_valid (data + start, (gssize) MIN (end - start, 32));
          g_autofree char *shown = jmem_text_escape (valid);

          g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                       "NvMap %s holds \"%s\"; expected %s", what, shown, expected);
          return FALSE;
        }
    }
  if (!jmem_text_parse_decimal (data + start, end - start, G_MAXUINT64, value))
    {
      g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                   "NvMap %s holds a number too large for 64 bits", what);
      return FALSE;
    }
  return TRUE;
}

gboolean
jmem_nvmap_total_memory_parse (const char *data,
                               gsize       len,
                               guint64    *bytes,
                               GError    **error)
{
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  return parse_one_number (data, len, "stats/total_memory", "one decimal number of bytes",
                           bytes, error);
}

gboolean
jmem_nvmap_counter_parse (const char *data,
                          gsize       len,
                          guint64    *value,
                          GError    **error)
{
  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (value != NULL, FALSE);

  return parse_one_number (data, len, "page-pool counter", "one decimal number of pages",
                           value, error);
}

/* "Max allocatable IOVMM memory: %lu bytes\n" (nvmap_debug_free_size_show) */
gboolean
jmem_nvmap_free_size_parse (const char *data,
                            gsize       len,
                            guint64    *bytes,
                            GError    **error)
{
  static const char prefix[] = "Max allocatable IOVMM memory:";
  static const char suffix[] = "bytes";
  gsize start = 0, end = len;

  g_return_val_if_fail (data != NULL || len == 0, FALSE);
  g_return_val_if_fail (bytes != NULL, FALSE);

  while (end > start && g_ascii_isspace (data[end - 1]))
    end--;
  if (end - start > sizeof prefix - 1 + sizeof suffix - 1 &&
      memcmp (data, prefix, sizeof prefix - 1) == 0 &&
      memcmp (data + end - (sizeof suffix - 1), suffix, sizeof suffix - 1) == 0)
    return parse_one_number (data + sizeof prefix - 1,
                             end - (sizeof suffix - 1) - (sizeof prefix - 1),
                             "iovmm/free_size", "a number of bytes", bytes, error);
  {
    g_autofree char *valid = jmem_text_make_valid (data, (gssize) MIN (end, 64));
    g_autofree char *shown = jmem_text_escape (valid);

    g_set_error (error, JMEM_ERROR, JMEM_ERROR_FAILED,
                 "NvMap iovmm/free_size holds \"%s\"; expected \"%s N %s\"",
                 shown, prefix, suffix);
  }
  return FALSE;
}
