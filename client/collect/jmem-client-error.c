#include "jmem-client-error.h"

G_DEFINE_QUARK (jmem-client-error-quark, jmem_client_error)
