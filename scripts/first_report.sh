#!/usr/bin/env bash
# A new user's first contact, timed: git clone -> `make run` -> reports/baseline/report.html,
# with where the seconds go (issue 37): clone, install (venv and pip), compile (nop-sim
# compile, the install's last step), run and report. Every line make prints is stamped
# with the seconds since the clone began.
#
#   bash scripts/first_report.sh            # clones this checkout's HEAD into a temporary folder
#   bash scripts/first_report.sh REPO DEST  # any repository, into DEST (must not exist)
#
# The pip cache and the package index count as they are on this machine: a first install
# that downloads every wheel takes longer.
set -euo pipefail
repo=${1:-$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)}
dest=${2:-$(mktemp -d)/nop-sim}
t0=$EPOCHREALTIME
git clone -q "$repo" "$dest"
t_clone=$EPOCHREALTIME
t_compile=""
t_run=""
while IFS= read -r line; do
  now=$EPOCHREALTIME
  case $line in
    *"nop-sim compile"*) [[ -z $t_compile ]] && t_compile=$now ;;
    *"nop-sim run "*) [[ -z $t_run ]] && t_run=$now ;;
  esac
  printf '%7.1f  %s\n' "$(awk -v a="$t0" -v b="$now" 'BEGIN{print b-a}')" "$line"
done < <(make -C "$dest" run 2>&1)
t_end=$EPOCHREALTIME
test -f "$dest/reports/baseline/report.html" || { echo "no report was written" >&2; exit 1; }
awk -v t0="$t0" -v c="$t_clone" -v k="$t_compile" -v r="$t_run" -v e="$t_end" 'BEGIN {
  printf "clone %.1f s, install %.1f s, compile %.1f s, run and report %.1f s: %.1f s to the report\n",
         c - t0, k - c, r - k, e - r, e - t0 }'
echo "report: $dest/reports/baseline/report.html"
