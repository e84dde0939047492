/* redact — what of a process's environment and arguments is never recorded.
 *
 * The daemon reads each image's environment and argv from /proc and passes them through here
 * before anything is queued for the trace (capture/proc.c; the build's command in
 * launcher/run.c), so a redacted value never reaches the trace, its WAL or any export.
 * Pure functions on NUL-separated entries; no state, no logging; unit-tested
 * (unit/proctable) and fuzzed (fuzz/redact).
 *
 * Environment: an entry whose NAME looks like a secret keeps its NAME alone (no '='):
 *   - NAME contains (any case) TOKEN, SECRET, PASSWORD, PASSWD, PASSPHRASE, PASSCODE,
 *     CREDENTIAL, APIKEY, PRIVATEKEY, JWT, COOKIE or SESSION, or AUTH anywhere but in a word
 *     ending in AUTHOR(S) (GIT_AUTHOR_DATE stays: builds stamp it);
 *   - or one of NAME's words (NAME split at every character that is not a letter or a digit)
 *     is KEY, KEYS, PAT, PASS, PWD or PW, or ends in PASS but for ASKPASS, BYPASS, COMPASS
 *     and SURPASS (GITHUB_PAT, AWS_ACCESS_KEY_ID, MY_PASS, SSHPASS, MYSQL_PWD, SMTP_PW; not
 *     PATH, PATCH, KEYMAP, PASSTHROUGH, GIT_ASKPASS, nor PWD and OLDPWD themselves);
 *   - or NAME matches one of the glob patterns given (`run --env-redact`, any case).
 * Every other value keeps everything but URL credentials (below).
 *
 * URL credentials, in every environment value and every argument: in `SCHEME://USERINFO@HOST`
 * (the authority ends at the first '/', '?', '#', white space or quote; USERINFO ends at its
 * last '@'), `USER:PASSWORD` becomes `USER:REDACTED` and a USERINFO without ':' (a token
 * given as the user name, as GitHub and GitLab accept) becomes `REDACTED`, except for the
 * ssh schemes (ssh, sftp, git+ssh, ssh+git, svn+ssh), where it is the login name.  Credentials
 * outside that shape (`user:pass@host` with no scheme, a '/' in an unencoded password) are
 * not recognised.  URLs joined by commas (GOPROXY's list) are each seen.
 *
 * HTTP headers that carry a credential, in every environment value and every argument:
 * `Authorization:`, `Proxy-Authorization:`, `Cookie:`, `Private-Token:`, `Job-Token:`,
 * `Deploy-Token:`, `X-Api-Key:`, `X-Auth-Token:` (any case; the name starting the text or after
 * white space, '=' or a quote, as in `curl -H 'Authorization: Bearer X'` and
 * `git -c http.extraHeader=Authorization: Basic X`): the value, up to the end of the line or
 * a quote, becomes REDACTED; an alphabetic scheme word before it (Bearer, Basic, token)
 * stays.  Other credentials in argv (`curl -u user:pass`, mysql's `-pPASS`) are not recognised
 * unless named with --argv-redact (which then applies to every program: `-p` also takes
 * `mkdir -p`'s operand).
 *
 * Arguments: an option named by a pattern (the defaults --password, --passwd, --passphrase,
 * --token, and `run --argv-redact OPTION`: an exact option name starting with '-') has its value
 * replaced by REDACTED in both forms, `OPT=VALUE` and `OPT VALUE` (the next argument); a
 * one-letter option (`-p`) also in the joined form `-pVALUE`.  Inside an argument that is a
 * command line (`sh -c 'mysql --password=x db'`, as make runs recipes) the option is found as
 * a word, and its value, up to white space or a shell operator or its closing quote, goes:
 * `--password=REDACTED db`.  This applies to every program
 * the build runs, whatever the option means to it, and `--` is not special (a later argument
 * that looks like the option is redacted too).  Clustered short options (`-vp VALUE`) are not
 * recognised.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define REDACT_MARK "REDACTED"

/* The argument options redacted by default (NULL-terminated). */
extern const char *const redact_default_options[];

/* Whether the environment variable name `name` (NUL-terminated) looks like a secret by the
 * built-in rules above. */
bool redact_env_name_is_secret(const char *name);

/* Whether `opt` can be given to redact_argv: starts with '-', has a name after it, no '='. */
bool redact_option_valid(const char *opt);

/* A redacted copy of `env` (NUL-separated NAME=VALUE entries, len bytes; a last entry without
 * its NUL is taken as one): secret-looking names and names matching `globs` (NULL-terminated,
 * may be NULL) keep NAME alone; URL credentials go from the other values; empty entries go.
 * Returns a g_malloc'd buffer of *out_len bytes (every entry NUL-terminated; never NULL). */
char *redact_env(const char *env, size_t len, char *const *globs, size_t *out_len);

/* A redacted copy of `argv` (NUL-separated arguments, len bytes, as /proc/PID/cmdline): the
 * values of the default options and of `options` (NULL-terminated, may be NULL), and URL
 * credentials.  Arguments keep their number and order.  Returns a g_malloc'd buffer of
 * *out_len bytes (never NULL; a last argument without its NUL keeps none). */
char *redact_argv(const char *argv, size_t len, char *const *options, size_t *out_len);
