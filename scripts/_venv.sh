# Shared by scripts/run and scripts/test: make .venv and install attn into it.
# Usage: . scripts/_venv.sh; ensure_venv ".[dev]"
# Reinstalls only when pyproject.toml (or the requested extras) changed since the last install.

ensure_venv() {
    local spec="$1"
    local py="${PYTHON:-python3}"
    if [ ! -x .venv/bin/python ]; then
        if ! command -v "$py" >/dev/null 2>&1; then
            echo "attn: $py not found; install Python 3.11 or newer (or set PYTHON=/path/to/python3.11)" >&2
            return 1
        fi
        if ! "$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
            echo "attn: needs Python 3.11 or newer, $py is $("$py" -V 2>&1); set PYTHON=/path/to/python3.11" >&2
            return 1
        fi
        echo "attn: creating .venv" >&2
        "$py" -m venv .venv || {
            echo "attn: '$py -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
            return 1
        }
    fi
    local stamp=".venv/.attn-installed"
    local want
    local sum
    sum="$(cksum <pyproject.toml | cut -d' ' -f1)"
    want="$sum $spec"
    if [ -f "$stamp" ] && .venv/bin/python -c 'import attn' >/dev/null 2>&1; then
        local have
        have="$(cat "$stamp")"
        # A dev install also satisfies a plain one.
        if [ "$have" = "$want" ] || { [ "$spec" = "." ] && [ "$have" = "$sum .[dev]" ]; }; then
            return 0
        fi
    fi
    echo "attn: installing $spec into .venv" >&2
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec" || {
        echo "attn: pip install -e '$spec' failed" >&2
        return 1
    }
    echo "$want" >"$stamp"
}
