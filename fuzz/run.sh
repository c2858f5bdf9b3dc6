#!/usr/bin/env bash
# Runs the fuzz targets, each for a bounded time, with corpora seeded from the fixtures:
#     fuzz/run.sh [SECONDS] [TARGET...]        (default: 60 s each, all four targets)
# Needs the nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). A crash is saved
# under fuzz/artifacts/TARGET/ and fails the run; turn it into a regression test.
set -euo pipefail
cd "$(dirname "$0")"
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(analyze_python analyze_javascript policy_load mcp_request)

seed() {
  local target=$1
  mkdir -p "corpus/$target"
  case $target in
    analyze_python) find ../policies/fixtures -name '*.py' -exec cp {} "corpus/$target/" \; ;;
    analyze_javascript) find ../policies/fixtures \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' \) -exec cp {} "corpus/$target/" \; ;;
    policy_load) cp ../policies/*.yaml "corpus/$target/" ;;
    mcp_request) cp seeds/mcp_request/* "corpus/$target/" ;;
  esac
}

for target in "${targets[@]}"; do
  seed "$target"
  echo "==> fuzzing $target for ${seconds}s"
  cargo +nightly fuzz run "$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
done
