#!/bin/sh
# lib.sh's assert_sboms_valid fails a test on a document its schema rejects, whatever the
# environment: its check (and the tests' own Python checks) are asserts, which python3 drops
# when the caller's environment has PYTHONOPTIMIZE, and then every document passed.  And from
# any directory: by hand as `sh tests/shell/tNNNN.sh`, a test that had changed directory could
# not import its checker, a failure that named the document as invalid.
PYTHONOPTIMIZE=1
export PYTHONOPTIMIZE
. "$(dirname "$0")/lib.sh"
require_cmd python3
echo '{"spdxVersion": 3}' > "$T/bad.spdx"
echo 'not json' > "$T/broken.spdx"
cd "$T"
if (assert_sboms_valid "$T/bad.spdx" "" "") > "$T/out" 2>&1; then
    case $(cat "$T/out") in
    *"# skipped"*) missing "python3-jsonschema or the schemas (SCHEMAS)"; exit 77 ;;
    esac
    fail "an invalid document passed: $(cat "$T/out")"
fi
assert_contains "$(cat "$T/out")" "bad.spdx" "the schema's verdict on the document"
case $(cat "$T/out") in *ModuleNotFoundError*) fail "the checker was not found: $(cat "$T/out")" ;; esac
(assert_sboms_valid "$T/broken.spdx" "" "") > "$T/out" 2>&1 &&
    fail "a document that is not JSON passed: $(cat "$T/out")"
exit 0
