/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The NvMap tables read line by line: see jmem-nvmap-table.h, and
 * docs/nvmap-formats.md for the formats and how ambiguities are resolved. */
#include "jmem-nvmap-table.h"

#include <string.h>

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

/* ---- numbers ---------------------------------------------------------- */

gboolean
jmem_nvmap_is_blank (char c)
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

gboolean
jmem_nvmap_parse_kib (const char *s, gsize n, guint64 *out)
{
  return n >= 2 && s[n - 1] == 'K' && jmem_text_parse_decimal (s, n - 1, G_MAXUINT64, out);
}

gboolean
jmem_nvmap_all_blank (const char *s, gsize n)
{
  for (gsize i = 0; i < n; i++)
    if (!jmem_nvmap_is_blank (s[i]))
      return FALSE;
  return TRUE;
}

/* ---- one client row --------------------------------------------------- */

void
jmem_nvmap_line_clear (JmemNvmapLine *line)
{
  g_clear_pointer (&line->client, g_free);
  g_clear_pointer (&line->process, g_free);
}

JmemNvmapClient *
jmem_nvmap_line_steal_client (JmemNvmapLine *line)
{
  JmemNvmapClient *c = g_new0 (JmemNvmapClient, 1);

  c->client = g_steal_pointer (&line->client);
  c->process = g_steal_pointer (&line->process);
  c->pid = line->pid;
  c->size_kib = line->size_kib;
  return c;
}

/* Matches one record in the kernel's fixed columns at @p. The PROCESS field
 * is taken by offset, so a comm holding spaces, digits or a newline cannot
 * move the PID or SIZE. Returns the bytes consumed, 0 when @p is not such a
 * record. */
static gsize
match_fixed (const char *p, gsize avail, JmemNvmapLine *r)
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

  if (jmem_nvmap_is_blank (p[0]) || p[CLIENT_W] != ' ' || p[PID_COL - 1] != ' ' ||
      p[SIZE_COL - 1] != ' ' || p[K_COL] != 'K')
    return 0;

  /* CLIENT: one word, left-justified, space padded. */
  while (client_len < CLIENT_W && p[client_len] != ' ')
    {
      if (p[client_len] == '\n' || p[client_len] == '\0' || p[client_len] == '\t')
        return 0;
      client_len++;
    }
  if (!jmem_nvmap_all_blank (p + client_len, CLIENT_W - client_len) ||
      memchr (p + client_len, '\t', CLIENT_W - client_len) != NULL)
    return 0;

  /* PROCESS: at most COMM_MAX bytes, so its first bytes are padding. */
  for (gsize i = 0; i < PROCESS_W - COMM_MAX; i++)
    if (p[PROCESS_COL + i] != ' ')
      return 0;
  while (proc_start < PROCESS_COL + PROCESS_W && p[proc_start] == ' ')
    proc_start++;

  pid_blank = jmem_nvmap_all_blank (p + PID_COL, PID_W) && memchr (p + PID_COL, '\t', PID_W) == NULL;
  if (!pid_blank && !parse_right_justified (p + PID_COL, PID_W, G_MAXUINT32, &pid))
    return 0;
  if (!parse_right_justified (p + SIZE_COL, SIZE_W, G_MAXUINT64, &size))
    return 0;

  if (client_len == 5 && memcmp (p, "total", 5) == 0)
    {
      /* "%-18s %18s %8s %10lluK": empty PROCESS and PID. */
      if (proc_start != PROCESS_COL + PROCESS_W || !pid_blank)
        return 0;
      r->kind = JMEM_NVMAP_LINE_TOTAL;
      r->size_kib = size;
      return rec;
    }
  if (pid_blank)
    return 0;

  r->kind = JMEM_NVMAP_LINE_CLIENT;
  r->client = jmem_text_make_valid (p, (gssize) client_len);
  r->process = jmem_text_make_valid (p + proc_start,
                                     (gssize) (PROCESS_COL + PROCESS_W - proc_start));
  r->pid = (guint32) pid;
  r->size_kib = size;
  return rec;
}

/* Whitespace fallback for one line: first token CLIENT, last "<digits>K"
 * SIZE, the token before it PID, the text between PROCESS. Used only for
 * lines that are not in the fixed columns (documentation examples, values
 * wider than their column). */
static gboolean
match_loose (const char *line, gsize len, JmemNvmapLine *r)
{
  gsize client_end = 0, proc_start, z0, z1 = len, y0, y1;
  guint64 size = 0, pid = 0;

  while (z1 > 0 && jmem_nvmap_is_blank (line[z1 - 1]))
    z1--;
  if (z1 == 0 || jmem_nvmap_is_blank (line[0]))
    return FALSE;  /* a row starts with its CLIENT word */

  while (client_end < z1 && !jmem_nvmap_is_blank (line[client_end]))
    client_end++;
  z0 = z1;
  while (z0 > client_end && !jmem_nvmap_is_blank (line[z0 - 1]))
    z0--;
  if (z0 == client_end || !jmem_nvmap_parse_kib (line + z0, z1 - z0, &size))
    return FALSE;

  y1 = z0;
  while (y1 > client_end && jmem_nvmap_is_blank (line[y1 - 1]))
    y1--;

  if (client_end == 5 && memcmp (line, "total", 5) == 0)
    {
      if (y1 != client_end)
        return FALSE;
      r->kind = JMEM_NVMAP_LINE_TOTAL;
      r->size_kib = size;
      return TRUE;
    }

  y0 = y1;
  while (y0 > client_end && !jmem_nvmap_is_blank (line[y0 - 1]))
    y0--;
  if (y0 == client_end || !jmem_text_parse_decimal (line + y0, y1 - y0, G_MAXUINT32, &pid))
    return FALSE;

  /* PROCESS: everything between CLIENT and PID, without the padding. */
  proc_start = client_end;
  while (proc_start < y0 && jmem_nvmap_is_blank (line[proc_start]))
    proc_start++;
  while (y0 > proc_start && jmem_nvmap_is_blank (line[y0 - 1]))
    y0--;

  r->kind = JMEM_NVMAP_LINE_CLIENT;
  r->client = jmem_text_make_valid (line, (gssize) client_end);
  r->process = jmem_text_make_valid (line + proc_start, (gssize) (y0 - proc_start));
  r->pid = (guint32) pid;
  r->size_kib = size;
  return TRUE;
}

/* ---- one line at a time ------------------------------------------------ */

/* "%-18s %18s %8s %11s" of CLIENT, PROCESS, PID, SIZE. */
static const char kernel_header[] =
  "CLIENT                        PROCESS      PID        SIZE";

/* The allocations and maps handle headers' UID columns, BASE being 0:
 * "BASE SIZE FLAGS REFS DUPES PINS [KMAPS UMAPS SHARE] UID [FROM_HUGETLBFS]"
 * and "BASE SIZE FLAGS SHARE UID MAPS MAPSIZE". */
#define ALLOCATIONS_UID_TOKEN     9
#define ALLOCATIONS_OLD_UID_TOKEN 6
#define MAPS_UID_TOKEN            4

void
jmem_nvmap_table_init (JmemNvmapTable     *table,
                       JmemNvmapTableFile  file)
{
  memset (table, 0, sizeof *table);
  table->file = file;
  table->in_headers = TRUE;
  table->has_maps = TRUE;  /* without a handle header: the r35/r36 columns */
}

gboolean
jmem_nvmap_next_token (const char     *line,
                       gsize           len,
                       gsize          *i,
                       JmemNvmapToken *tok)
{
  gsize start;

  while (*i < len && jmem_nvmap_is_blank (line[*i]))
    (*i)++;
  if (*i >= len)
    return FALSE;
  start = *i;
  while (*i < len && !jmem_nvmap_is_blank (line[*i]))
    (*i)++;
  *tok = (JmemNvmapToken) { line + start, *i - start };
  return TRUE;
}

static gboolean
token_is (JmemNvmapToken t, const char *word)
{
  return t.len == strlen (word) && memcmp (t.s, word, t.len) == 0;
}

static gboolean
first_word_is (const char *line, gsize len, const char *word)
{
  gsize i = 0;
  JmemNvmapToken t;

  return jmem_nvmap_next_token (line, len, &i, &t) && token_is (t, word);
}

/* The handle header: which columns the handle rows have. */
static void
read_handle_header (JmemNvmapTable *t, const char *line, gsize len)
{
  gsize i = 0;
  JmemNvmapToken tok;

  t->handle_header = TRUE;
  t->has_maps = FALSE;
  t->has_huge = FALSE;
  while (jmem_nvmap_next_token (line, len, &i, &tok))
    {
      if (token_is (tok, "KMAPS"))
        t->has_maps = TRUE;
      else if (token_is (tok, "FROM_HUGETLBFS"))
        t->has_huge = TRUE;
    }
}

/* A header, only at the top: the clients header first, the handle header
 * first or right after it. */
static gboolean
read_header (JmemNvmapTable *t, const char *line, gsize len)
{
  if (!t->in_headers)
    return FALSE;
  if (t->n_lines == 0 && !jmem_nvmap_is_blank (line[0]) && first_word_is (line, len, "CLIENT"))
    {
      t->seen_header = TRUE;
      t->kernel_header = len == sizeof kernel_header - 1 &&
                         memcmp (line, kernel_header, len) == 0;
      return TRUE;
    }
  if (t->file != JMEM_NVMAP_TABLE_CLIENTS && !t->handle_header &&
      jmem_nvmap_is_blank (line[0]) && first_word_is (line, len, "BASE"))
    {
      t->seen_header = TRUE;
      read_handle_header (t, line, len);
      return TRUE;
    }
  return FALSE;
}

/* A client row or the total at @p, fixed columns first: the bytes it
 * takes, or 0. */
static gsize
read_row (JmemNvmapTable *t, const char *p, gsize avail, JmemNvmapLine *r)
{
  const char *nl;
  gsize line_len, n;

  if (jmem_nvmap_is_blank (p[0]) || p[0] == '\n')
    return 0;

  n = match_fixed (p, avail, r);
  if (n > 0)
    {
      t->n_fixed++;
      r->text = p;
      r->len = p[n - 1] == '\n' ? n - 1 : n;
      return n;
    }

  nl = memchr (p, '\n', avail);
  line_len = nl != NULL ? (gsize) (nl - p) : avail;
  /* Under the kernel's header every row is padded to at least the fixed
   * width; a shorter line is not a row. This keeps a short user-controlled
   * text (an allocation tag holding a newline) from posing as a client. */
  if (t->kernel_header && line_len < RECORD_LEN - 1)
    return 0;
  if (!match_loose (p, line_len, r))
    {
      jmem_nvmap_line_clear (r);
      return 0;
    }
  t->n_loose++;
  r->text = p;
  r->len = line_len;
  return nl != NULL ? line_len + 1 : line_len;
}

static void
note_total (JmemNvmapTable *t, guint64 kib)
{
  if (t->has_total)
    {
      t->n_malformed++;  /* a second total: keep the first */
      return;
    }
  t->has_total = TRUE;
  t->total_kib = kib;
}

/* What a line that is no header and no row is. */
static JmemNvmapLineKind
classify_other (JmemNvmapTable *t, const char *line, gsize len)
{
  if (jmem_nvmap_all_blank (line, len))
    return JMEM_NVMAP_LINE_BLANK;
  if (jmem_nvmap_is_blank (line[0]))
    return JMEM_NVMAP_LINE_INDENTED;
  /* 2011-2014 kernels explain after the total why rows do not add up. */
  if (t->has_total && len >= 5 && memcmp (line, "Note:", 5) == 0)
    t->seen_note = TRUE;
  else
    t->n_malformed++;
  return JMEM_NVMAP_LINE_OTHER;
}

gsize
jmem_nvmap_table_next (JmemNvmapTable *table,
                       const char     *data,
                       gsize           len,
                       JmemNvmapLine  *line)
{
  const char *nl;
  gsize n;

  g_return_val_if_fail (len > 0, 0);

  memset (line, 0, sizeof *line);
  n = read_row (table, data, len, line);
  if (n > 0)
    {
      if (line->kind == JMEM_NVMAP_LINE_TOTAL)
        note_total (table, line->size_kib);
    }
  else
    {
      nl = memchr (data, '\n', len);
      line->text = data;
      line->len = nl != NULL ? (gsize) (nl - data) : len;
      n = nl != NULL ? line->len + 1 : len;
      if (line->len > 0 && read_header (table, data, line->len))
        line->kind = JMEM_NVMAP_LINE_HEADER;
      else
        line->kind = classify_other (table, data, line->len);
    }
  if (line->kind != JMEM_NVMAP_LINE_HEADER)
    table->in_headers = FALSE;
  table->n_lines++;
  return n;
}

gboolean
jmem_nvmap_table_line_complete (const char *data,
                                gsize       len)
{
  return len >= RECORD_LEN && memchr (data, '\n', len) != NULL;
}

guint
jmem_nvmap_table_uid_token (const JmemNvmapTable *table)
{
  if (table->file == JMEM_NVMAP_TABLE_MAPS)
    return MAPS_UID_TOKEN;
  return table->has_maps ? ALLOCATIONS_UID_TOKEN : ALLOCATIONS_OLD_UID_TOKEN;
}

gboolean
jmem_nvmap_line_is_handle_shaped (const char *text,
                                  gsize       len)
{
  return len >= JMEM_NVMAP_HANDLE_INDENT &&
         jmem_nvmap_all_blank (text, JMEM_NVMAP_HANDLE_INDENT);
}

JmemNvmapLayout
jmem_nvmap_table_layout (const JmemNvmapTable *table)
{
  if (table->seen_note)
    return JMEM_NVMAP_LAYOUT_KERNEL_NOTE;
  if (table->n_fixed > 0 || (table->kernel_header && table->n_loose == 0 && table->has_total))
    return JMEM_NVMAP_LAYOUT_KERNEL;
  if (table->n_loose > 0)
    return JMEM_NVMAP_LAYOUT_LOOSE;
  return JMEM_NVMAP_LAYOUT_UNKNOWN;
}

/* A VMA row: "%-12lx-%12lx %6lluK" after blank columns. The start is
 * left-justified and the end right-justified, so spaces may surround the
 * dash of a short address. */
gboolean
jmem_nvmap_vma_parse (const char        *line,
                      gsize              len,
                      JmemNvmapVma      *vma,
                      JmemNvmapVmaSpans *spans)
{
  const char *dash = memchr (line, '-', len);
  gsize a = 0, a_end, b, b_end, k;
  guint64 kib;

  if (dash == NULL)
    return FALSE;
  while (a < len && jmem_nvmap_is_blank (line[a]))
    a++;
  a_end = (gsize) (dash - line);
  while (a_end > a && jmem_nvmap_is_blank (line[a_end - 1]))
    a_end--;
  b = (gsize) (dash - line) + 1;
  while (b < len && jmem_nvmap_is_blank (line[b]))
    b++;
  b_end = b;
  while (b_end < len && !jmem_nvmap_is_blank (line[b_end]))
    b_end++;
  k = b_end;
  while (k < len && jmem_nvmap_is_blank (line[k]))
    k++;
  {
    gsize k_end = k;

    while (k_end < len && !jmem_nvmap_is_blank (line[k_end]))
      k_end++;
    if (!jmem_nvmap_all_blank (line + k_end, len - k_end) ||
        !jmem_text_parse_hex (line + a, a_end - a, G_MAXUINT64, &vma->start) ||
        !jmem_text_parse_hex (line + b, b_end - b, G_MAXUINT64, &vma->end) ||
        !jmem_nvmap_parse_kib (line + k, k_end - k, &kib) || vma->end <= vma->start)
      return FALSE;
  }
  if (spans != NULL)
    *spans = (JmemNvmapVmaSpans) { a, a_end, b, b_end };
  return TRUE;
}
