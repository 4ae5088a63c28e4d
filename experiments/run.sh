#!/usr/bin/env bash
# Reproduces EXPERIMENTS.md on SimDroid: SFT vs SFT+GRPO on AW-Gen's three regimes (1), MobileRL's AdaGRPO ablation (2),
# few-shot per-app adaptation (3). Every artefact (checkpoints, logs, eval JSON, the SQLite store) goes under $OUT.
# Reward components (4): outcome (experiment 1's grpo runs) vs ADMIRE vs ProgRM_LCS vs GUI-Shepherd PRM vs a combination.
# Usage: experiments/run.sh [sft|grpo|ablation|long|long-ablation|adapt|reward-models|reward-runs|rewards|all]   (default all; each step skips what already exists)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-experiments/out}
export AWB_HOME=${AWB_HOME:-$OUT/home}
DB=${DB:-$OUT/awb.db}
CFG=experiments/configs
read -r -a REGIMES <<< "${REGIMES:-unseen-instance unseen-template unseen-app}"
EVAL_SEEDS=30,7,1234
read -r -a TRAIN_SEEDS <<< "${TRAIN_SEEDS:-0 1 2}"
mkdir -p "$OUT"
awb() { node bin/awb.js "$@"; }
timed() { local name=$1; shift; local t0=$SECONDS; "$@"; echo "$name $((SECONDS - t0)) s" >> "$OUT/wall.txt"; }

eval_ckpt() { # eval_ckpt NAME CHECKPOINT SPLIT
  [ -f "$OUT/eval-$1.json" ] && return 0
  timed "eval-$1" awb eval --policy "$2" --split "$3" --part test --seeds "$EVAL_SEEDS" --db "$DB" --json > "$OUT/eval-$1.json.tmp"
  mv "$OUT/eval-$1.json.tmp" "$OUT/eval-$1.json"
}

# GRPO config for a regime: the shared recipe with the split, the SFT init and an optional ablation row merged in.
grpo_config() { # grpo_config SPLIT INIT ABLATION SEED [ITERATIONS] > file
  node -e '
    const [base, split, init, row, seed, iterations] = process.argv.slice(1);
    const c = JSON.parse(require("fs").readFileSync(base, "utf8"));
    const rows = { adagrpo: [1,1,1], "no-shortest-path": [0,1,1], "no-replay": [1,0,1], "no-failure-curriculum": [1,1,0], grpo: [0,0,0] };
    const [spa, pr, fcf] = rows[row];
    c.split = split; c.init = init; c.seed = Number(seed);
    if (iterations) c.iterations = Number(iterations);
    c.adagrpo = { shortestPath: { enabled: !!spa }, positiveReplay: { enabled: !!pr }, failureCurriculum: { enabled: !!fcf } };
    process.stdout.write(JSON.stringify(c, null, 2));
  ' "$CFG/grpo.json" "$1" "$2" "$3" "$4" "${5:-}"
}

sft() {
  for r in "${REGIMES[@]}"; do
    if [ ! -f "$OUT/sft-$r/policy.json" ]; then
      node -e 'const c=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8")); c.split=process.argv[2]; process.stdout.write(JSON.stringify(c))' "$CFG/sft.json" "$r" > "$OUT/sft-$r.json"
      timed "sft-$r" awb train sft --config "$OUT/sft-$r.json" --out "$OUT/sft-$r" --json > "$OUT/sft-$r.log"
    fi
    eval_ckpt "sft-$r" "$OUT/sft-$r/policy.json" "$r"
  done
}

grpo_run() { # grpo_run NAME SPLIT ABLATION SEED [ITERATIONS]
  if [ ! -f "$OUT/$1/policy.json" ] || ! grep -q '"stoppedBy":"done"' "$OUT/$1.log" 2>/dev/null; then
    grpo_config "$2" "$OUT/sft-$2/policy.json" "$3" "$4" "${5:-}" > "$OUT/$1.json"
    if [ -f "$OUT/$1/trainer.json" ]; then
      timed "$1" awb train grpo --resume "$OUT/$1" --db "$DB" --json > "$OUT/$1.log"
    else
      timed "$1" awb train grpo --config "$OUT/$1.json" --out "$OUT/$1" --db "$DB" --json > "$OUT/$1.log"
    fi
  fi
  eval_ckpt "$1" "$OUT/$1/policy.json" "$2"
}

# AW-Gen's SFT+GRPO is plain GRPO (with its curriculum): the `grpo` ablation row. One run per training seed.
grpo() {
  for r in "${REGIMES[@]}"; do
    for s in "${TRAIN_SEEDS[@]}"; do grpo_run "grpo-$r-s$s" "$r" grpo "$s"; done
  done
}

ablation() {
  # Training seed 0 on unseen-instance; the plain-GRPO row is experiment 1's grpo-unseen-instance-s0.
  for row in adagrpo no-shortest-path no-replay no-failure-curriculum; do
    grpo_run "ablation-$row" unseen-instance "$row" 0
  done
}

# A 4x longer plain-GRPO run per regime (training seed 0): does the gain grow with the budget?
long() {
  for r in "${REGIMES[@]}"; do grpo_run "grpo-long-$r-s0" "$r" grpo 0 240; done
}

# The ablation again at the long budget (240 iterations); its plain-GRPO row is grpo-long-unseen-instance-s0.
long_ablation() {
  for row in adagrpo no-shortest-path no-replay no-failure-curriculum; do
    grpo_run "ablation-long-$row" unseen-instance "$row" 0 240
  done
}

# Per-app adaptation from experiment 1's unseen-app GRPO model (training seed 0): the paper's recipe (GRPO only, 50
# iterations on 8 shots) and SFT on the shots' oracle demonstrations followed by that GRPO. Default lowrank adapter.
adapt() {
  local base="$OUT/grpo-unseen-app-s0/policy.json"
  local apps
  # Packages, not names: app names contain spaces ("Audio Recorder"); --app takes either.
  apps=$(node --import tsx -e 'import { SPLIT_DATA } from "./core/tasks/splits.ts"; import { resolveAdaptApp } from "./core/rl/adapt-instances.ts"; console.log(SPLIT_DATA.unseenApp.testApps.map((a) => resolveAdaptApp(a).package).join(" "))')
  for method in grpo sft+grpo; do
    for app in $apps; do
      local name="adapt-${method/+/-}-$app"
      [ -f "$OUT/$name.json" ] && continue
      timed "$name" awb adapt --app "$app" --policy "$base" --shots 8 --method "$method" --out "$OUT/$name.adapter.json" --json > "$OUT/$name.log"
      tail -1 "$OUT/$name.log" > "$OUT/$name.json"
    done
  done
}

# The ProgRM_LCS progress model and the GUI-Shepherd judge of a regime, fitted on its training part (awb rewards fit).
reward_models() {
  for r in unseen-instance unseen-template; do
    [ -f "$OUT/rewards/progrm-$r.json" ] || timed "fit-progrm-$r" awb rewards fit progrm --split "$r" --part train --seeds 0,1 --source lcs --seed 0 \
      --out "$OUT/rewards/progrm-$r.json" --json > "$OUT/rewards/fit-progrm-$r.log"
    [ -f "$OUT/rewards/judge-$r.json" ] || timed "fit-judge-$r" awb rewards fit shepherd --split "$r" --part train --seeds 0,1 --seed 0 \
      --out "$OUT/rewards/judge-$r.json" --json > "$OUT/rewards/fit-judge-$r.log"
  done
}

# GRPO config for a reward row: experiment 1's recipe (plain GRPO, same budget) with the row's advantage mode and
# reward components; {progrm} and {judge} become the regime's fitted models.
reward_config() { # reward_config SPLIT ROW SEED > file
  node -e '
    const fs = require("fs");
    const [base, rowFile, split, init, seed, progrm, judge] = process.argv.slice(1);
    const c = JSON.parse(fs.readFileSync(base, "utf8"));
    const row = JSON.parse(fs.readFileSync(rowFile, "utf8").replaceAll("{progrm}", progrm).replaceAll("{judge}", judge));
    Object.assign(c, row, { split, init, seed: Number(seed) });
    process.stdout.write(JSON.stringify(c, null, 2));
  ' "$CFG/grpo.json" "$CFG/rewards/$2.json" "$1" "$OUT/sft-$1/policy.json" "$3" "$(realpath "$OUT")/rewards/progrm-$1.json" "$(realpath "$OUT")/rewards/judge-$1.json"
}

reward_run() { # reward_run ROW SPLIT SEED — each run has its own store, so ADMIRE's milestone memory starts empty
  local name="reward-$1-$2-s$3"
  if [ ! -f "$OUT/$name/policy.json" ] || ! grep -q '"stoppedBy":"done"' "$OUT/$name.log" 2>/dev/null; then
    reward_config "$2" "$1" "$3" > "$OUT/$name.json"
    rm -rf "$OUT/$name" "$OUT/$name.db"
    timed "$name" awb train grpo --config "$OUT/$name.json" --out "$OUT/$name" --db "$OUT/$name.db" --json > "$OUT/$name.log"
  fi
  eval_ckpt "$name" "$OUT/$name/policy.json" "$2"
}

# ROWS / REWARD_REGIMES / TRAIN_SEEDS select a subset (e.g. ROWS=admire experiments/run.sh rewards).
rewards() {
  mkdir -p "$OUT/rewards"
  read -r -a rows <<< "${ROWS:-outcome-rtg admire progrm outcome-progrm prm combination}"
  read -r -a regimes <<< "${REWARD_REGIMES:-unseen-instance unseen-template}"
  for row in "${rows[@]}"; do
    for r in "${regimes[@]}"; do
      for s in "${TRAIN_SEEDS[@]}"; do reward_run "$row" "$r" "$s"; done
    done
  done
}

case "${1:-all}" in
  sft) sft ;;
  grpo) grpo ;;
  ablation) ablation ;;
  long) long ;;
  long-ablation) long_ablation ;;
  adapt) adapt ;;
  reward-models) reward_models ;;
  reward-runs) rewards ;;
  rewards) reward_models; rewards ;;
  all) sft; grpo; ablation; long; long_ablation; adapt; reward_models; rewards ;;
  *) echo "usage: $0 [sft|grpo|ablation|long|long-ablation|adapt|reward-models|reward-runs|rewards|all]" >&2; exit 2 ;;
esac
node --import tsx experiments/summarize.ts "$OUT"
