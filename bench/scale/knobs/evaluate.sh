#!/bin/sh
# bench:scale's evaluator (bench/scale.mjs): a real evaluator run in the sandbox like any other,
# whose cost is a sleep rather than CPU, so that the bench measures how an evolve run scales
# with its workers on a 2-core machine. The verdict is a cheap stand-in: the candidate must
# still define and export knobs() and keep its 300 knobs (deleting them must not reach a fixed
# objective); its objective is a hash of its knobs modulo 100000 (an arbitrary number that
# differs from program to program, so that selection spreads over many parents). It costs
# three processes (sh, sleep, awk): each one more costs a few ms of CPU on a small VM, which
# W = 64 pays 32 times a second.
#
# usage: sh evaluate.sh <candidate.js> [--sleep-ms MS] [--seed N] [--quick]
program=$1
shift
ms=2000
while [ $# -gt 0 ]; do
  case $1 in
    --sleep-ms) ms=$2; shift 2 ;;
    *) shift ;;
  esac
done
millis=$((1000 + ms % 1000))
sleep "$((ms / 1000)).${millis#1}"
exec awk '
  /function knobs\(/ { defines = 1 }
  /module\.exports/ { exports = 1 }
  /^const k[0-9]+ = [01];$/ { knobs++; hash = (hash * 31 + NR * (substr($4, 1, 1) + 1)) % 100000 }
  END {
    if (defines && exports && knobs == 300) printf "{\"correct\": true, \"objective\": %d, \"direction\": \"minimize\"}\n", hash
    else print "{\"correct\": false, \"objective\": 0, \"direction\": \"minimize\", \"error\": \"knobs is not defined and exported with its 300 knobs\"}"
  }' "$program"
