# The start the walkthrough scripts share (examples/*/run.sh source it, from
# the top of the source tree): which gpuq to run ($GPUQ, else the one on
# PATH, else build-release/ or build/, which `sh ./examples/demo.sh` and
# `sh ./tests/run.sh` build), a new database in a temporary directory
# ($TMPDIR, kept for a look afterwards) as GPUQ_DB, and gpuq(), which shows
# each command before it runs it.
if [ -n "${GPUQ:-}" ]; then
    gpuq_bin=$GPUQ
elif command -v gpuq >/dev/null 2>&1; then
    gpuq_bin=$(command -v gpuq)
elif [ -x build-release/cli/gpuq ]; then
    gpuq_bin=$PWD/build-release/cli/gpuq
elif [ -x build/cli/gpuq ]; then
    gpuq_bin=$PWD/build/cli/gpuq
else
    echo "error: no gpuq: put it on PATH, set GPUQ, or build it (sh ./examples/demo.sh)" >&2
    exit 1
fi

GPUQ_DB=$(mktemp -d)/gpuq.db
export GPUQ_DB
echo "== database: $GPUQ_DB"

gpuq() {
    echo "\$ gpuq $*"
    command "$gpuq_bin" "$@"
}
