#!/usr/bin/env bash
# Scale-out contract, one ctest test per case: `scaleout_cases.sh CASE ATOLL SOURCE_DIR`.
# Exit 0 pass, 1 fail (with both values printed).
set -u
. "$(dirname "$0")/../python3.sh"
case_name=$1 atoll=$2 src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
# A shard's exit depends on which runs it holds; the merge's must be the highest of them.
run_shard() { "$@" >/dev/null 2>"$tmp/.stderr"; [ $? -le 2 ] || fail "'$*' crashed: $(cat "$tmp/.stderr")"; }
expect_rc() { # expect_rc WANT CMD...
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
v=$src/scenarios/verify
# mpirun as root (CI's containers), more ranks than cores, and under ASan no leak report at exit:
# Open MPI keeps allocations until the process ends, which LeakSanitizer reports as leaks.
# HWLOC_COMPONENTS=-pci: under mpirun -n 3 on the 2-CPU machine each rank's MPI_Init had hwloc
# list the PCI devices, and libpciaccess read their names from pci.ids into an array grown by
# realloc. Under ASan every realloc copies: the ASan build's mpirun -n 3 on tiny.yaml took 15.5 s,
# and 1.0 s without the PCI list (perf: asan_realloc under libpciaccess, 60 % of the ranks' time;
# -n 2 took as long with the PCI list as without). atoll uses no PCI information from MPI, so the
# search and what the tests compare are the same.
# odls_base_sigkill_timeout=0: when a rank exits non-zero (a violated bound exits 1, a refused sweep
# run 2), mpirun ends the job and waited 2 s before returning (1 s between its SIGTERM and SIGKILL
# to ranks that had already called MPI_Finalize, and its exit status is the same without it:
# `mpirun -n 3` of a program whose rank 0 returns 1 after MPI_Finalize took 2.58 s, 0.57 s with
# this, both exiting 1). Ten of these tests' mpirun runs exit non-zero.
mpi_env() {
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_odls_base_sigkill_timeout=0
  export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 HWLOC_COMPONENTS=-pci
}
# 3 policies x 3 spreads = 9 runs; the spread -1 is refused by the loader, so 3 runs have no row
# (the rows around them must still land in place) and every sweep exits 2.
SWEEP=("$v/rt-vs-be.yaml" --policy reef,seq,streams --set 'sim.timing_spread=0,-1,0.1' --quiet)
case $case_name in
  sweep_shards_merge_identical)
    expect_rc 2 "$atoll" sweep "${SWEEP[@]}" --csv "$tmp/one.csv" --jobs 2
    [ "$(wc -l <"$tmp/one.csv")" -eq 7 ] || fail "one-process sweep: $(wc -l <"$tmp/one.csv") lines, expected header + 6 rows"
    for n in 1 2 3 4 10; do
      files=()
      for k in $(seq 1 $n); do
        run_shard "$atoll" sweep "${SWEEP[@]}" --shard "$k/$n" --csv "$tmp/s$k.csv" --jobs 1
        files+=("$tmp/s$k.csv")
      done
      # Shards given in any order merge to the same bytes.
      expect_rc 2 "$atoll" sweep --merge $(printf '%s\n' "${files[@]}" | sort -r) --csv "$tmp/merged$n.csv"
      cmp "$tmp/one.csv" "$tmp/merged$n.csv" || fail "$n shards merged differ from the one-process sweep"
    done
    # A sweep whose runs all hold merges with exit 0.
    expect_rc 0 "$atoll" sweep "$v/tiny.yaml" --policy reef,rt-only --quiet --shard 1/2 --csv "$tmp/t1.csv"
    expect_rc 0 "$atoll" sweep "$v/tiny.yaml" --policy reef,rt-only --quiet --shard 2/2 --csv "$tmp/t2.csv"
    expect_rc 0 "$atoll" sweep --merge "$tmp/t1.csv" "$tmp/t2.csv" --csv "$tmp/t.csv"
    expect_rc 0 "$atoll" sweep "$v/tiny.yaml" --policy reef,rt-only --quiet --csv "$tmp/tone.csv"
    cmp "$tmp/tone.csv" "$tmp/t.csv" || fail "2 shards of the holding sweep differ" ;;
  sweep_merge_refuses_bad_shards)
    for k in 1 2 3; do
      run_shard "$atoll" sweep "${SWEEP[@]}" --shard "$k/3" --csv "$tmp/s$k.csv"
    done
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" "$tmp/s2.csv" --csv "$tmp/m.csv"
    grep -q "but 2 files were given" "$tmp/.stderr" || fail "missing shard: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s2.csv" --csv "$tmp/m.csv"
    grep -q "given twice" "$tmp/.stderr" || fail "repeated shard: $(cat "$tmp/.stderr")"
    head -n -1 "$tmp/s3.csv" >"$tmp/cut.csv"
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/cut.csv" --csv "$tmp/m.csv"
    grep -q "did not finish" "$tmp/.stderr" || fail "unfinished shard: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/m.csv" ] || fail "a refused merge wrote its CSV"
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" "$tmp/s2.csv" "$tmp/s3.csv"
    grep -q -- "--csv FILE is required" "$tmp/.stderr" || fail "no --csv: $(cat "$tmp/.stderr")"
    for bad in 0/3 4/3 3 a/b 1/0 -1/4294967295 1/-3 1/3x 1/4294967296; do
      expect_rc 2 "$atoll" sweep "${SWEEP[@]}" --shard "$bad" --csv "$tmp/x.csv"
    done ;;
  sweep_refuses_what_it_cannot_run)
    # Inputs a sweep once ran wrongly with exit 0: a --set longer than its text buffer (cut, it ran
    # cut values), more runs than 32 bits count (16^8 wrapped to 0 runs), a shard index past 32 bits
    # (it ran another shard's run) and --jobs with a tail.
    long=$(seq -s, 1000000000000000000 1000000000000000059)
    expect_rc 2 "$atoll" sweep "$v/tiny.yaml" --set "seed=$long" --csv "$tmp/x.csv"
    grep -q "a --set of 1204 characters; at most 1023" "$tmp/.stderr" || fail "long --set: $(cat "$tmp/.stderr")"
    sets=(); for i in 1 2 3 4 5 6 7 8; do sets+=(--set "seed=$(seq -s, 1 16)"); done
    expect_rc 2 "$atoll" sweep "$v/tiny.yaml" "${sets[@]}" --csv "$tmp/x.csv"
    grep -q "more than 1000000 runs" "$tmp/.stderr" || fail "16^8 runs: $(cat "$tmp/.stderr")"
    expect_rc 2 "$atoll" sweep "$v/tiny.yaml" --set seed=1,2 --jobs 2abc --csv "$tmp/x.csv"
    # Shard 5 of 4294967295 holds no run of 4; shard 1 of 2147483649 only run 0.
    expect_rc 0 "$atoll" sweep "$v/tiny.yaml" --set seed=1,2,3,4 --shard 5/4294967295 --jobs 2 --quiet --csv "$tmp/s.csv"
    [ "$(grep -vc '^#' "$tmp/s.csv")" -eq 1 ] || fail "shard 5/4294967295 wrote rows: $(cat "$tmp/s.csv")"
    expect_rc 0 "$atoll" sweep "$v/tiny.yaml" --set seed=1,2,3,4 --shard 1/2147483649 --jobs 4 --quiet --csv "$tmp/s.csv"
    [ "$(grep -vc '^#' "$tmp/s.csv")" -eq 2 ] || fail "shard 1/2147483649: $(cat "$tmp/s.csv")"
    grep -q '^1,' "$tmp/s.csv" || fail "shard 1/2147483649 did not run seed 1" ;;
  sweep_threads_small)
    # A sweep's worker threads share the profiles it loads once (atoll_model_memo, io/load.h), and
    # a run whose --set names another profile loads its own: small enough for ThreadSanitizer
    # (.ci/run, label threads). Two threads write the one-thread sweep's CSV.
    swap=("$v/rt-vs-be.yaml" --policy reef,seq --set 'models.be5=models/be5.yaml,models/rt5.yaml' --quiet)
    expect_rc 1 "$atoll" sweep "${swap[@]}" --csv "$tmp/one.csv" --jobs 1
    expect_rc 1 "$atoll" sweep "${swap[@]}" --csv "$tmp/two.csv" --jobs 2
    [ "$(wc -l <"$tmp/one.csv")" -eq 5 ] || fail "one-thread sweep: $(cat "$tmp/one.csv")"
    cmp "$tmp/one.csv" "$tmp/two.csv" || fail "two threads: $(diff "$tmp/one.csv" "$tmp/two.csv")"
    [ "$(sed -n 2p "$tmp/one.csv" | cut -d, -f3-)" != "$(sed -n 3p "$tmp/one.csv" | cut -d, -f3-)" ] ||
      fail "rt5 in place of be5 changed nothing: $(cat "$tmp/one.csv")" ;;
  sweep_threads_every_policy)
    # Every policy's decisions in two worker threads at once, two seeds of each side by side: DISB
    # A under all but DART's three (which refuse its blocking RT client), then those on DART's case
    # study. A policy that writes shared state races here, which ThreadSanitizer (.ci/run, label
    # threads) reports: InSS's batcher once wrote libm's signgam through lgamma. Two threads write
    # the one-thread CSV.
    pols=rt-only,seq,streams,wait,orion,reef,reset,edf,fcfs,sjf,abacus,mps-default,mps-static,gslice,inss,gpulet
    for run in "disb/A.yaml $pols" "seeds/dart/table3.yaml dart,base-gpu,base-cpu"; do
      file=$src/scenarios/${run% *} policies=${run#* }
      for jobs in 1 2; do
        "$atoll" sweep "$file" --policy "$policies" --set seed=1,2 --duration-ms 1000 --jobs "$jobs" \
          --csv "$tmp/$jobs.csv" --quiet >"$tmp/.stdout" 2>"$tmp/.stderr"
        rc=$?
        [ "$rc" -le 1 ] || { cat "$tmp/.stderr" >&2; fail "sweep $file under $policies, --jobs $jobs: exit $rc"; }
      done
      [ "$(wc -l <"$tmp/1.csv")" -eq $((2 * ($(tr -cd , <<<"$policies" | wc -c) + 1) + 1)) ] ||
        fail "$file: not one row per policy and seed: $(cat "$tmp/1.csv")"
      cmp "$tmp/1.csv" "$tmp/2.csv" || fail "$file: two threads: $(diff "$tmp/1.csv" "$tmp/2.csv")"
    done ;;
  explore_mpirun_small)
    # The same check on tiny.yaml alone: what CI's ASan stage runs in place of the whole matrix.
    SCENARIOS=tiny bash "$0" explore_mpirun_matches_sequential "$atoll" "$src"; exit $? ;;
  explore_threads_small)
    # The same check on tiny.yaml alone: small enough for ThreadSanitizer (.ci/run, label threads).
    SCENARIOS=tiny bash "$0" explore_threads_match_sequential "$atoll" "$src"; exit $? ;;
  explore_threads_match_sequential)
    # Every verify scenario, under a policy that proves its bound and one that violates it: with
    # 2 and 3 threads the verdict, exit status, worst values, state count and witness are the
    # sequential search's. Only how runs split into schedules and cut runs may differ.
    keep='{k: d[k] for k in ("complete", "violated", "states", "worst_rt_latency_us", "nominal_rt_latency_us",
           "all_min_rt_latency_us", "all_max_rt_latency_us", "bounds", "witness", "choice_points", "mode")}'
    for f in ${SCENARIOS:-tiny rt-vs-be jitter same-instant}; do
      for p in reef seq; do
        rm -f "$tmp/w1.txt"
        "$atoll" explore "$v/$f.yaml" --policy $p --quiet --json "$tmp/1.json" --witness "$tmp/w1.txt" >/dev/null 2>&1
        want_rc=$?
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($keep)" "$tmp/1.json" >"$tmp/1.key"
        ts=3; [ $f = tiny ] && ts="2 3" # the larger scenarios once, with more threads than CI's 2 CPUs
        for t in $ts; do
          rm -f "$tmp/w$t.txt"
          expect_rc $want_rc "$atoll" explore "$v/$f.yaml" --policy $p --quiet --threads $t --json "$tmp/$t.json" \
            --witness "$tmp/w$t.txt"
          python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($keep)
assert d['threads'] == int(sys.argv[2]) and d['ranks'] == 1" "$tmp/$t.json" $t >"$tmp/$t.key" || fail "no threads/ranks keys"
          cmp -s "$tmp/1.key" "$tmp/$t.key" || fail "$f $p --threads $t: $(diff "$tmp/1.key" "$tmp/$t.key")"
          if [ -e "$tmp/w1.txt" ]; then
            diff <(grep -v '^#' "$tmp/w1.txt") <(grep -v '^#' "$tmp/w$t.txt") >/dev/null ||
              fail "$f $p --threads $t: another witness"
          fi
        done
        echo "$f $p: exit $want_rc, $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['states'])" "$tmp/1.json") states, same with $ts threads"
      done
    done ;;
  explore_killed_thread_writes_nothing)
    # One worker thread of a running search gets SIGTERM: the run ends non-zero with a message,
    # and neither the JSON nor the witness is written.
    "$atoll" explore "$v/jitter.yaml" --policy seq --threads 2 --quiet --json "$tmp/r.json" --witness "$tmp/w.txt" \
      >"$tmp/.stdout" 2>"$tmp/.stderr" &
    pid=$!
    tid=
    for _ in $(seq 100); do
      tid=$(ls "/proc/$pid/task" 2>/dev/null | grep -v "^$pid\$" | head -1)
      [ -n "$tid" ] && break
      sleep 0.05
    done
    [ -n "$tid" ] || { wait $pid; fail "no worker thread seen (the search ended first?)"; }
    kill -TERM "$tid"
    wait $pid
    rc=$?
    [ $rc -ne 0 ] || fail "a killed search exited 0"
    grep -q "the search was killed (signal 15); no verdict and no JSON are written" "$tmp/.stderr" ||
      fail "message: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/r.json" ] && [ ! -e "$tmp/w.txt" ] || fail "a killed search wrote its result"
    ! grep -q "explored every schedule\|INCOMPLETE" "$tmp/.stdout" || fail "a killed search printed a verdict" ;;
  sweep_mpirun_identical)
    # Registered only when atoll is built with MPI (ATOLL_MPI): rank 0 hands runs to ranks 1-2 and
    # writes the one-process sweep's CSV; a one-rank mpirun is the ordinary sweep.
    mpi_env
    expect_rc 2 "$atoll" sweep "${SWEEP[@]}" --csv "$tmp/one.csv" --jobs 1
    for n in 1 3; do
      expect_rc 2 mpirun --oversubscribe -n $n "$atoll" sweep "${SWEEP[@]}" --csv "$tmp/mpi$n.csv"
      cmp "$tmp/one.csv" "$tmp/mpi$n.csv" || fail "mpirun -n $n: the CSV differs from the one-process sweep"
      [ "$(grep -c '^run ' "$tmp/.stdout")" -eq 6 ] || fail "mpirun -n $n: $(grep -c '^run ' "$tmp/.stdout") summary lines, expected 6"
    done
    # MPI ranks within a shard: the shard's runs only, merged like any shard.
    expect_rc 2 mpirun --oversubscribe -n 3 "$atoll" sweep "${SWEEP[@]}" --shard 1/2 --csv "$tmp/s1.csv"
    expect_rc 2 mpirun --oversubscribe -n 2 "$atoll" sweep "${SWEEP[@]}" --shard 2/2 --csv "$tmp/s2.csv"
    expect_rc 2 "$atoll" sweep --merge "$tmp/s1.csv" "$tmp/s2.csv" --csv "$tmp/m.csv"
    cmp "$tmp/one.csv" "$tmp/m.csv" || fail "MPI shards merged differ" ;;
  explore_mpirun_matches_sequential)
    # Registered only with ATOLL_MPI. mpirun -n 3 (and -n 2 with 2 threads each on tiny): the ranks
    # share one visited set partitioned by state hash, so the exit status, verdict, worst values,
    # nominal values, witness and distinct state count are the sequential search's.
    mpi_env
    keep='{k: d[k] for k in ("complete", "violated", "states", "worst_rt_latency_us", "nominal_rt_latency_us",
           "all_min_rt_latency_us", "all_max_rt_latency_us", "bounds", "witness", "choice_points", "mode")}'
    for f in ${SCENARIOS:-tiny rt-vs-be jitter same-instant}; do
      for p in reef seq; do
        runs=("-n 3 --threads 1"); [ $f = tiny ] && runs+=("-n 2 --threads 2")
        rm -f "$tmp/w1.txt"
        "$atoll" explore "$v/$f.yaml" --policy $p --quiet --json "$tmp/1.json" --witness "$tmp/w1.txt" >/dev/null 2>&1
        want_rc=$?
        python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($keep)" "$tmp/1.json" >"$tmp/1.key"
        for r in "${runs[@]}"; do
          set -- $r
          rm -f "$tmp/wm.txt"
          expect_rc $want_rc mpirun --oversubscribe $1 $2 "$atoll" explore "$v/$f.yaml" --policy $p --quiet $3 $4 \
            --json "$tmp/m.json" --witness "$tmp/wm.txt"
          python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($keep)
assert d['ranks'] == int(sys.argv[2]) and d['threads'] == int(sys.argv[3]), 'ranks/threads'" "$tmp/m.json" $2 $4 \
            >"$tmp/m.key" || fail "$f $p mpirun $r: no ranks/threads keys"
          cmp -s "$tmp/1.key" "$tmp/m.key" || fail "$f $p mpirun $r: $(diff "$tmp/1.key" "$tmp/m.key")"
          if [ -e "$tmp/w1.txt" ]; then
            diff <(grep -v '^#' "$tmp/w1.txt") <(grep -v '^#' "$tmp/wm.txt") >/dev/null || fail "$f $p mpirun $r: another witness"
          fi
        done
        echo "$f $p: exit $want_rc, $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['states'])" "$tmp/1.json") states, the same under mpirun ${runs[*]}"
      done
    done ;;
  explore_mpirun_killed_rank)
    # Registered only with ATOLL_MPI. Rank 1 of a running mpirun -n 3 search is killed with SIGKILL
    # (no handler can run): the launcher ends the job non-zero naming the rank, and no verdict, no
    # JSON and no witness are written.
    mpi_env
    mpirun --oversubscribe -n 3 "$atoll" explore "$src/bench/scenarios/explore-3m.yaml" --quiet --max-states 100000000 \
      --json "$tmp/r.json" --witness "$tmp/w.txt" >"$tmp/.stdout" 2>"$tmp/.stderr" &
    mp=$!
    victim=
    for _ in $(seq 200); do
      for k in $(cat /proc/$mp/task/*/children 2>/dev/null); do
        tr '\0' '\n' <"/proc/$k/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1' && victim=$k
      done
      [ -n "$victim" ] && break
      sleep 0.05
    done
    [ -n "$victim" ] || { kill $mp; wait $mp; fail "rank 1 not seen"; }
    sleep 0.5 # into the search
    kill -KILL "$victim"
    wait $mp
    rc=$?
    [ $rc -ne 0 ] || fail "mpirun exited 0 after a rank was killed"
    grep -q "rank 1 .*exited on signal 9" "$tmp/.stderr" || fail "no message naming the rank: $(cat "$tmp/.stderr")"
    [ ! -e "$tmp/r.json" ] && [ ! -e "$tmp/w.txt" ] || fail "a killed run wrote its result"
    ! grep -q "explored every schedule\|INCOMPLETE" "$tmp/.stdout" || fail "a killed run printed a verdict"
    echo "mpirun exit $rc: $(grep "rank 1" "$tmp/.stderr")" ;;
  explore_threads_bad_input)
    for bad in 0 -1 x 257; do
      expect_rc 2 "$atoll" explore "$v/tiny.yaml" --threads "$bad"
    done ;;
  *) fail "unknown case $case_name" ;;
esac
