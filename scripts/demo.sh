#!/usr/bin/env bash
# The demo page: installs what is missing, builds the web package, and serves www/ locally.
#
#   bash scripts/demo.sh                 # setup if needed, build, serve on http://127.0.0.1:8080/
#   bash scripts/demo.sh --port 9000     # another port (PORT=9000 works too)
#   bash scripts/demo.sh --no-build      # serve what is in www/ (www/pkg/ from an earlier build)
#   bash scripts/demo.sh --build-only    # build, copy pkg/web/ to www/pkg/ and pkg/worker/ to www/worker/, exit
#
# The build also copies the zstd decoder for compressed logs to www/vendor/ (scripts/vendor-zstd.sh).
# The server is python3's http.server bound to 127.0.0.1 (it serves .wasm as application/wasm,
# which the streaming compile in init() needs). Stop it with Ctrl-C.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export PATH="$HOME/.cargo/bin:$PATH"

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }
die() { printf 'demo: %s\n' "$*" >&2; exit 1; }

port=${PORT:-8080}
build=1
serve=1
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || die "--port needs a number"; port=$2; shift 2 ;;
    --port=*) port=${1#--port=}; shift ;;
    --no-build) build=0; shift ;;
    --build-only) serve=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done
[ "$build" = 1 ] || [ "$serve" = 1 ] || die "--no-build and --build-only together do nothing"
case "$port" in
  ''|*[!0-9]*) die "port must be a number, got '$port'" ;;
esac
[ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "port must be between 1 and 65535, got $port"

# Check the port first, so a taken port does not cost a build.
if [ "$serve" = 1 ]; then
  command -v python3 >/dev/null || die "python3 is needed to serve the page (apt-get install -y python3)"
  # A clear message instead of a traceback when the port is taken.
  python3 -c 'import socket, sys; s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", int(sys.argv[1]))); s.close()' "$port" 2>/dev/null ||
    die "port $port on 127.0.0.1 is in use; pick another with --port N"
fi

if [ "$build" = 1 ]; then
  if ! command -v wasm-pack >/dev/null || ! command -v wasm-bindgen >/dev/null; then
    echo "demo: wasm-pack or wasm-bindgen is missing; running scripts/setup.sh (a few minutes on a fresh machine)"
    bash scripts/setup.sh
  fi
  echo "demo: building the package (scripts/build.sh)"
  bash scripts/build.sh
  [ -f pkg/web/promptfold.js ] || die "scripts/build.sh did not produce pkg/web/promptfold.js"
  rm -rf www/pkg www/worker
  cp -R pkg/web www/pkg
  cp -R pkg/worker www/worker
  echo "demo: copied pkg/web/ to www/pkg/ and pkg/worker/ (large logs open in it) to www/worker/"
  bash scripts/vendor-zstd.sh
fi

[ "$serve" = 1 ] || exit 0

if [ ! -f www/pkg/promptfold.js ]; then
  echo "demo: warning: www/pkg/ has no build; the page will say so. Run without --no-build to build it." >&2
fi
echo "promptfold demo: http://127.0.0.1:$port/"
exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root/www"
