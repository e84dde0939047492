/* schema — the store's migrations (schema.c): store_migration(N) is the SQL that brings a
 * database from version N-1 to N (1..STORE_SCHEMA_VERSION), NULL otherwise. */
#pragma once

#include <glib.h>

const char *store_migration(int version);
