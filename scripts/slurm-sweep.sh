#!/usr/bin/env bash
# One shard of a commlab sweep per Slurm array task; merge them afterwards.
#
#   job=$(sbatch --parsable --array=1-8 scripts/slurm-sweep.sh out/ \
#           --sizes 16,32,64 --rates 0,0.1,0.2 --seeds 20)
#   sbatch --dependency=afterok:$job --wrap "commlab merge out/shard-*.csv --out out/sweep.csv"
#
# The array must run 1..N with step 1: task K runs shard K/N (run index i
# belongs to shard i mod N + 1), so the N outputs are disjoint and together
# the whole grid; `commlab merge` checks that and writes exactly the CSV of
# the unsharded sweep. GNU parallel does the same on one machine:
#
#   parallel commlab sweep --sizes 16,32 --shard {}/8 --out out/shard-{}.csv ::: $(seq 8)
#
# COMMLAB names the binary (default: `commlab` on PATH, e.g. from
# `cargo install --path crates/commlab-cli`).
#SBATCH --job-name=commlab-sweep
#SBATCH --cpus-per-task=4
set -euo pipefail
out=${1:?usage: sbatch --array=1-N scripts/slurm-sweep.sh OUT_DIR [sweep options...]}
shift
k=${SLURM_ARRAY_TASK_ID:?run it as a Slurm job array: sbatch --array=1-N}
n=${SLURM_ARRAY_TASK_COUNT:?run it as a Slurm job array: sbatch --array=1-N}
mkdir -p "$out"
exec "${COMMLAB:-commlab}" sweep "$@" --shard "$k/$n" --out "$out/shard-$k.csv"
