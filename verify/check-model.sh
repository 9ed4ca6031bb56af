#!/usr/bin/env bash
# Model-checks the run queue protocol (verify/run-queue.pml) with spin.
# The protocol must pass an exhaustive search; each negative variant, which removes one
# piece of the protocol, must produce a counterexample for the invariant that piece keeps.
# What the model covers: almanac/architecture/queue-model.md.
#
# Without spin this prints why and exits 0, unless CODEALMANAC_REQUIRE_SPIN is set (CI).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
model="$here/run-queue.pml"

if ! command -v spin >/dev/null 2>&1; then
  if [ -n "${CODEALMANAC_REQUIRE_SPIN:-}" ]; then
    echo "check-model: spin is not installed, and CODEALMANAC_REQUIRE_SPIN is set" >&2
    exit 1
  fi
  echo "check-model: skipped: spin is not installed (Debian/Ubuntu: apt-get install spin gcc)"
  exit 0
fi
cc="${CC:-gcc}"
if ! command -v "$cc" >/dev/null 2>&1; then
  echo "check-model: $cc is needed to compile spin's verifier" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0

# verify <name> <spin -D flags...>: builds and runs one exhaustive search in its own
# folder; leaves pan's output in $work/<name>/pan.out and sets states, seconds, outcome.
verify() {
  local name="$1"
  shift
  local dir="$work/$name"
  mkdir -p "$dir"
  cp "$model" "$dir/"
  (
    cd "$dir"
    spin -a "$@" run-queue.pml >spin.out 2>&1 || { cat spin.out >&2; exit 1; }
    # COLLAPSE keeps memory near 1 GB; MEMLIM stops the search rather than the machine.
    "$cc" -O2 -w -DSAFETY -DCOLLAPSE -DMEMLIM=4096 -o pan pan.c 2>cc.out || { cat cc.out >&2; exit 1; }
    ./pan -m20000 >pan.out 2>&1 || true
  ) || { outcome="broken"; states="?"; seconds="?"; return; }
  local out="$dir/pan.out"
  states="$(awk '/states, stored/ { print $1; exit }' "$out")"
  seconds="$(awk '/pan: elapsed time/ { print $4; exit }' "$out")"
  if grep -q "errors: 0" "$out" && ! grep -qE "Search not completed|out of memory|too small" "$out"; then
    outcome="pass"
  elif grep -q "assertion violated" "$out"; then
    outcome="$(grep -m1 "assertion violated" "$out" | sed 's/^pan:[0-9]*: //; s/ (at depth.*//' | tr -s ' ')"
  elif grep -qE "invalid end state" "$out" && ! grep -q "errors: 0" "$out"; then
    outcome="deadlock"
  else
    outcome="incomplete"
  fi
}

# The protocol: two producers, up to two crashes of workers or executors, and one live
# holder whose heartbeat goes stale; then with a `jobs` read reaping and waking meanwhile.
expect_pass() {
  local label="$1"
  shift
  verify "$@"
  if [ "$outcome" = "pass" ]; then
    printf '%-44s pass: no error in %s states (%s s)\n' "$label" "$states" "$seconds"
  else
    printf '%-44s FAILED: %s after %s states (%s s)\n' "$label" "$outcome" "$states" "$seconds"
    failures=$((failures + 1))
  fi
}

# A variant passes the check only if spin finds the counterexample it is there to show.
expect_counterexample() {
  local label="$1" invariant="$2" tag="$3"
  shift 3
  verify "$@"
  case "$outcome" in
    *"$tag"*)
      printf '%-44s fails as it must: %s broken (%s) after %s states (%s s)\n' \
        "$label" "$invariant" "$outcome" "$states" "$seconds" ;;
    pass)
      printf '%-44s WRONG: no counterexample in %s states; the model no longer checks %s\n' \
        "$label" "$states" "$invariant"
      failures=$((failures + 1)) ;;
    *)
      printf '%-44s WRONG: expected %s to break, got %s after %s states\n' \
        "$label" "$invariant" "$outcome" "$states"
      failures=$((failures + 1)) ;;
  esac
}

expect_pass "protocol" protocol
expect_pass "protocol, jobs read while draining" jobs-read -DJOBS_READ -DMAX_STALLS=0
expect_counterexample "variant NO_HANDOFF" I1 i1_ no-handoff -DNO_HANDOFF
expect_counterexample "variant NO_ADOPT" I3 i3_ no-adopt -DNO_ADOPT
expect_counterexample "variant NO_TOKEN_CHECK" I3 i3_ no-token-check -DNO_TOKEN_CHECK

if [ "$failures" -gt 0 ]; then
  echo "check-model: $failures check(s) failed" >&2
  exit 1
fi
echo "check-model: the protocol holds and every negative variant is caught"
