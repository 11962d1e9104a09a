// The system SQLite C API, for the benchmark's hand-written raw SQLite baseline.
#include <sqlite3.h>
