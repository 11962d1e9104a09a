// libpq, the PostgreSQL project's C client, from the system's packages (libpq-dev on Debian).
#include <libpq-fe.h>
