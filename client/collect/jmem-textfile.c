/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "jmem-textfile.h"

#include "jmem-write.h"

gboolean
jmem_textfile_replace (const char *dir,
                       const char *name,
                       const char *data,
                       gsize       len,
                       GError    **error)
{
  g_autoptr(JmemWriteDir) d = jmem_write_dir_open (dir, JMEM_WRITE_DIR_DEFAULT, error);

  return d != NULL && jmem_write_replace (d, name, data, len, JMEM_TEXTFILE_MODE, error);
}
