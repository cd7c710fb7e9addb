/* The accounting in a snapshot's JSON ("accounting", docs/snapshot.schema.json). */
#pragma once

#include "jmem-accounting.h"
#include "jmem-json-writer.h"

G_BEGIN_DECLS

/* Writes the value of the "accounting" member: an object, or null. */
void jmem_accounting_write_json (JmemJsonWriter       *writer,
                                 const JmemAccounting *accounting);

G_END_DECLS
