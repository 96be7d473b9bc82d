# Sourced by the test scripts: their `python3` is Debian's /usr/bin/python3, which
# tools/install-deps.sh installs and tools/plot runs under. Whatever python3 comes first on PATH
# may be another interpreter, or a version manager's shim that starts each one through shell
# scripts: 0.45 s a call on the CI machine against 0.05 s, and the suite makes about 150 calls.
python3() { /usr/bin/python3 "$@"; }
