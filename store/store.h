/* store — `buildtrail store SUBCOMMAND` (store/cmd.c): many traces in one PostgreSQL database
 * (docs/store.md).  Main-level: it prints and returns the exit status. */
#pragma once

int store_main(int argc, char **argv);
