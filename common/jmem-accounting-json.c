#include "jmem-accounting-json.h"

/* Every string here is jmem's own ASCII text (field names come from the
 * meminfo parser, which takes only [A-Za-z0-9_()]). */
static void
add_string (JmemJsonWriter *b, const char *name, const char *value)
{
  jmem_json_writer_set_member_name (b, name);
  if (value == NULL)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_string_value (b, value);
}

static void
add_kib (JmemJsonWriter *b, const char *name, gint64 kib)
{
  jmem_json_writer_set_member_name (b, name);
  if (kib < 0)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_int_value (b, kib);
}

/* A difference that may be negative (unexplained, held by no process). */
static void
add_signed (JmemJsonWriter *b, const char *name, gint64 kib, gboolean known)
{
  jmem_json_writer_set_member_name (b, name);
  if (!known)
    jmem_json_writer_add_null_value (b);
  else
    jmem_json_writer_add_int_value (b, kib);
}

static void
add_strings (JmemJsonWriter *b, const char *name, const GPtrArray *texts)
{
  jmem_json_writer_set_member_name (b, name);
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < texts->len; i++)
    jmem_json_writer_add_string_value (b, g_ptr_array_index (texts, i));
  jmem_json_writer_end_array (b);
}

static void
add_reconciliation (JmemJsonWriter *b, const JmemReconciliation *r)
{
  jmem_json_writer_set_member_name (b, "reconciliation");
  jmem_json_writer_begin_object (b);
  add_kib (b, "processes", r->n_processes);
  add_kib (b, "processes_without_pss", r->n_without_pss);
  add_kib (b, "pss_without_nvmap_kib", r->pss_kib);
  add_kib (b, "rss_without_pss_kib", r->rss_without_pss_kib);
  add_kib (b, "kernel_mapped_kib", r->kernel_mapped_kib);
  add_kib (b, "nvmap_shares_kib", r->nvmap_shares_kib);
  add_kib (b, "nvmap_kib", r->nvmap_kib);
  add_kib (b, "gpu_kib", r->gpu_kib);
  add_kib (b, "used_kib", r->used_kib);
  add_kib (b, "by_processes_kib", r->by_processes_kib);
  add_signed (b, "held_by_no_process_kib", r->held_by_no_process_kib, r->used_kib >= 0);
  jmem_json_writer_end_object (b);
}

void
jmem_accounting_write_json (JmemJsonWriter       *b,
                            const JmemAccounting *a)
{
  if (a == NULL || a->mem_total_kib <= 0)
    {
      jmem_json_writer_add_null_value (b);
      return;
    }
  jmem_json_writer_begin_object (b);
  add_kib (b, "mem_total_kib", a->mem_total_kib);
  add_kib (b, "physical_kib", a->physical_kib);
  add_string (b, "physical_source", a->physical_source);
  add_string (b, "physical_note", a->physical_note);
  add_kib (b, "firmware_reserved_kib", a->firmware_reserved_kib);

  jmem_json_writer_set_member_name (b, "buckets");
  jmem_json_writer_begin_array (b);
  for (guint i = 0; i < JMEM_N_BUCKETS; i++)
    {
      const JmemBucket *bk = &a->buckets[i];

      jmem_json_writer_begin_object (b);
      add_string (b, "name", jmem_accounting_bucket_name (bk->id));
      add_string (b, "label", jmem_accounting_bucket_label (bk->id));
      add_kib (b, "kib", bk->kib);
      add_string (b, "fields", bk->fields);
      add_string (b, "source", bk->source);
      add_string (b, "note", bk->note);
      jmem_json_writer_end_object (b);
    }
  jmem_json_writer_end_array (b);
  add_kib (b, "accounted_kib", a->accounted_kib);
  add_signed (b, "unexplained_kib", a->unexplained_kib, TRUE);
  jmem_json_writer_set_member_name (b, "overlap");
  jmem_json_writer_add_boolean_value (b, a->unexplained_kib < 0);

  jmem_json_writer_set_member_name (b, "nvmap");
  jmem_json_writer_begin_object (b);
  add_string (b, "source", a->nvmap_source);
  add_kib (b, "total_kib", a->nvmap_total_kib);
  add_kib (b, "hugetlbfs_kib", a->nvmap_hugetlbfs_kib);
  add_kib (b, "iovmm_allocatable_kib", a->nvmap_iovmm_allocatable_kib);
  jmem_json_writer_end_object (b);
  add_kib (b, "hugetlb_free_kib", a->hugetlb_free_kib);
  add_kib (b, "cma_total_kib", a->cma_total_kib);
  add_kib (b, "cma_free_kib", a->cma_free_kib);
  add_reconciliation (b, &a->reconciliation);
  add_strings (b, "notes", a->notes);
  jmem_json_writer_end_object (b);
}
