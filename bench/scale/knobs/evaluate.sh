#!/bin/sh
# bench:scale's evaluator (bench/scale.mjs): a real evaluator run in the sandbox like any other,
# whose cost is a sleep rather than CPU, so that the bench measures how an evolve run scales
# with its workers on a 2-core machine. The verdict is a cheap stand-in: the candidate must
# still define and export knobs(); its objective is its checksum modulo 100000 (an arbitrary
# number that differs from program to program, so that selection spreads over many parents).
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
sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
if grep -q 'function knobs(' "$program" && grep -q 'module.exports' "$program"; then
  set -- $(cksum < "$program")
  printf '{"correct": true, "objective": %d, "direction": "minimize"}\n' "$(($1 % 100000))"
else
  printf '{"correct": false, "objective": 0, "direction": "minimize", "error": "knobs is not defined and exported"}\n'
fi
