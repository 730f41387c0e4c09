# trilab — the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install demo test lint golden bench results results-mc results-8 results-9 results-agents results-calibration results-balance results-mcts results-trio-strong ladders report clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# Compile and cache every game's Numba kernels (about 90 s once on 2 cores;
# a silent no-op in 0.3 s when they are cached; docs/speed.md#compile-times).
install: $(STAMP)
	@$(PY) -m trilab.solver.compiled --jobs 2

demo: install
	$(VENV)/bin/trilab solve trike --size 5

lint: install
	$(VENV)/bin/ruff check .

test: install lint
	$(VENV)/bin/pytest -q

# Rewrite tests/golden/ from the current code (after a deliberate rule, stream or
# solver change); review `git diff tests/golden` before committing.
golden: install
	$(VENV)/bin/pytest -q tests/test_game_contract.py tests/test_trike_golden.py -k "golden or tier or opening_tables" --regen-golden

# Issue 24: strength ladders of mcts-greedy:N:4, each rung against greedy and against
# the rung below, the games split evenly over the agent's seats.
# Tabula Trivium, 200/500/1000/2000/5000/10000 simulations, 40 games a pairing (about
# 45 min on one core, most of it the games against the rung below, many drawn by the
# ply cap or repetition), then 2000 straight against 200 (80 games, 6 min).
# Trio board, 250/1000/4000/10000 simulations, the rung in one seat against two greedy
# seats or two of the rung below (240 games a pairing, 80 a seat): 15.9 min on one core,
# 11.7 of them the 10000-vs-4000 games (147 of 240 without a winner).
# Then the mcts:N family (random playouts) of both games, and a time budget (0.02 and
# 0.1 s a turn, played in a Python game loop; these depend on the machine and its load).
ladders: install
	nice -n 10 $(PY) -m trilab.analysis.ladder tabula-trivium "mcts-greedy:{n}:4" 200,500,1000,2000,5000,10000 --games 40 --seed 5 --out results/tabula-trivium/ladder-mcts-greedy-4.csv
	nice -n 10 $(PY) -m trilab.analysis.ladder tabula-trivium "mcts-greedy:{n}:4" 200,2000 --games 80 --seed 7 --out results/tabula-trivium/ladder-mcts-greedy-4-200-vs-2000.csv
	nice -n 10 $(PY) -m trilab.analysis.ladder tabula-trivium "mcts:{n}" 200,500,1000,2000,5000,10000 --games 40 --seed 5 --out results/tabula-trivium/ladder-mcts.csv
	nice -n 10 $(PY) -m trilab.analysis.ladder trio-board "mcts:{n}" 250,1000,4000,10000 --games 120 --seed 5 --out results/trio-board/ladder-mcts.csv
	nice -n 10 $(PY) -m trilab.analysis.ladder tabula-trivium "mcts-greedy:{n}:4" 0.02s,0.1s --games 20 --seed 5 --out results/tabula-trivium/ladder-mcts-greedy-4-seconds.csv
	nice -n 10 $(PY) -m trilab.analysis.ladder trio-board "mcts-greedy:{n}:4" 0.02s,0.1s --games 60 --seed 5 --out results/trio-board/ladder-mcts-greedy-4-seconds.csv
	nice -n 10 $(PY) -m trilab.analysis.ladder trio-board "mcts-greedy:{n}:4" 250,1000,4000,10000 --games 240 --seed 5 --out results/trio-board/ladder-mcts-greedy-4.csv

# Issue 21: the Trio card game between strong players.  Strength: the tested policy in one
# seat against memory (or deduce) in the others, in every seat position, then the summary
# over the positions; then deduce in every seat for every table the memory study covers
# (3 players: 20,000 games; 4 players 8,000, 4 with teams 10,000, 5 players 6,000,
# 6 players 5,500, 6 with teams 8,500: about +-1 point at the fair share, at most +-1.06).
# Chunks of 100-500 games are saved as they finish, so an interrupted run resumes where it
# stopped.
TRIO_STRENGTH = results/trio-cards/strength
results-trio-strong: install
	# a table already made is kept (delete it to make it again); a study stopped
	# midway resumes from its saved chunks
	for k in 0 1 2; do \
	  pol=$$(echo memory,memory,memory | awk -F, -v k=$$k -v p=ismcts:1000 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-simple-ismcts-1000-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy $$pol --games 1000 --seed 2101 --chunk 100 \
	    --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-simple-ismcts-1000
	for k in 0 1 2; do \
	  pol=$$(echo deduce,deduce,deduce | awk -F, -v k=$$k -v p=ismcts:1000 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-simple-ismcts-1000-vs-deduce-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy $$pol --games 1000 --seed 2101 --chunk 100 \
	    --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-simple-ismcts-1000-vs-deduce
	# ismcts-flat:48 against deduce, paired game by game with deduce everywhere (seed 4101)
	out=$(TRIO_STRENGTH)/p3-simple-deduce-all-s4101.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy deduce --games 1000 --seed 4101 \
	    --chunk 50 --out $$out || exit 1
	for k in 0 1 2; do \
	  pol=$$(echo deduce,deduce,deduce | awk -F, -v k=$$k -v p=ismcts-flat:48 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-simple-ismcts-flat-48-vs-deduce-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy $$pol --games 1000 --seed 4101 --chunk 50 \
	    --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-simple-ismcts-flat-48-vs-deduce \
	  --paired $(TRIO_STRENGTH)/p3-simple-deduce-all-s4101.csv
	# ismcts-infer:N (ISMCTS on infer's weighted deals, infer's reveal as the root prior,
	# deduce playouts), pre-registered on seed 7400 in session 30 after a pilot on the
	# tuning seed 7301, before any game on 7400: 1,000 games a seat position against two
	# deduce players, paired with deduce everywhere on the same deals. Primary test
	# (issue 21's clause): ismcts-infer:64 beats deduce when its paired gain's interval is
	# above zero. Secondary: the same against infer:64 in its seat on the same seed (what
	# the search adds to infer), and the ladder of budgets 16, 64, 256 against deduce
	for pol in ismcts-infer:64 infer:64 ismcts-infer:16 ismcts-infer:256; do \
	  name=p3-simple-$$(echo $$pol | tr : -)-vs-deduce-s7400; \
	  out=$(TRIO_STRENGTH)/p3-simple-deduce-all-s7400.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy deduce --games 1000 --seed 7400 \
	    --chunk 50 --out $$out || exit 1; \
	  for k in 0 1 2; do \
	    p=$$(echo deduce,deduce,deduce | awk -F, -v k=$$k -v p=$$pol '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	    out=$(TRIO_STRENGTH)/$$name-seat$$k.csv; test -f $$out || \
	    $(VENV)/bin/trilab simulate trio-cards --policy $$p --games 1000 --seed 7400 \
	      --chunk 50 --out $$out || exit 1; done; \
	  $(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/$$name \
	    --paired $(TRIO_STRENGTH)/p3-simple-deduce-all-s7400.csv || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength \
	  $(TRIO_STRENGTH)/p3-simple-ismcts-infer-64-vs-deduce-s7400 \
	  --paired-seats $(TRIO_STRENGTH)/p3-simple-infer-64-vs-deduce-s7400
	# ismcts-infer:64 against two memory players (session 30, measured after the test above)
	for k in 0 1 2; do \
	  pol=$$(echo memory,memory,memory | awk -F, -v k=$$k -v p=ismcts-infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-simple-ismcts-infer-64-s7400-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy $$pol --games 1000 --seed 7400 --chunk 50 \
	    --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-simple-ismcts-infer-64-s7400
	# infer:64 (deduce reading the opponents' choices), pre-registered on seed 6100 after a
	# pilot on seed 6001: against deduce, paired game by game with deduce everywhere, and
	# against memory
	out=$(TRIO_STRENGTH)/p3-simple-deduce-all-s6100.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy deduce --games 1000 --seed 6100 \
	    --chunk 50 --out $$out || exit 1
	for k in 0 1 2; do \
	  pol=$$(echo deduce,deduce,deduce | awk -F, -v k=$$k -v p=infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-simple-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy $$pol --games 1000 --seed 6100 --chunk 50 \
	    --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-simple-infer-64-vs-deduce \
	  --paired $(TRIO_STRENGTH)/p3-simple-deduce-all-s6100.csv
	for k in 0 1 2; do \
	  pol=$$(echo memory,memory,memory | awk -F, -v k=$$k -v p=infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-simple-infer-64-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --policy $$pol --games 1000 --seed 6100 --chunk 50 \
	    --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-simple-infer-64
	# infer:64 against deduce in spicy games, pre-registered on seed 6200 (session 26)
	# before its spicy seat table is played
	out=$(TRIO_STRENGTH)/p3-spicy-deduce-all-s6200.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --mode spicy --policy deduce --games 1000 \
	    --seed 6200 --chunk 50 --out $$out || exit 1
	for k in 0 1 2; do \
	  pol=$$(echo deduce,deduce,deduce | awk -F, -v k=$$k -v p=infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3}'); \
	  out=$(TRIO_STRENGTH)/p3-spicy-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --mode spicy --policy $$pol --games 1000 \
	    --seed 6200 --chunk 50 --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p3-spicy-infer-64-vs-deduce \
	  --paired $(TRIO_STRENGTH)/p3-spicy-deduce-all-s6200.csv
	# infer:64 against deduce at 4 players (simple), pre-registered on seed 6300 (session 26)
	out=$(TRIO_STRENGTH)/p4-simple-deduce-all-s6300.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --policy deduce --games 1000 \
	    --seed 6300 --chunk 50 --out $$out || exit 1
	for k in 0 1 2 3; do \
	  pol=$$(echo deduce,deduce,deduce,deduce | awk -F, -v k=$$k -v p=infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3,$$4}'); \
	  out=$(TRIO_STRENGTH)/p4-simple-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --policy $$pol --games 1000 \
	    --seed 6300 --chunk 50 --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p4-simple-infer-64-vs-deduce \
	  --paired $(TRIO_STRENGTH)/p4-simple-deduce-all-s6300.csv
	# infer:64 against deduce at 4 players (spicy), pre-registered on seed 6600 (session 27)
	# before its seat table is played
	out=$(TRIO_STRENGTH)/p4-spicy-deduce-all-s6600.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode spicy --policy deduce \
	    --games 1000 --seed 6600 --chunk 50 --out $$out || exit 1
	for k in 0 1 2 3; do \
	  pol=$$(echo deduce,deduce,deduce,deduce | awk -F, -v k=$$k -v p=infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3,$$4}'); \
	  out=$(TRIO_STRENGTH)/p4-spicy-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode spicy --policy $$pol \
	    --games 1000 --seed 6600 --chunk 50 --out $$out || exit 1; done
	$(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p4-spicy-infer-64-vs-deduce \
	  --paired $(TRIO_STRENGTH)/p4-spicy-deduce-all-s6600.csv
	# infer:64 against deduce in 4-player team games (partners in seats 0+2 and 1+3; the
	# infer seat's partner plays deduce), pre-registered on seeds 6400 (simple) and 6500
	# (spicy) in session 27 before either team table is played: confirmed when the paired
	# gain's interval is above zero
	for mode in simple spicy; do \
	  seed=$$(test $$mode = simple && echo 6400 || echo 6500); \
	  out=$(TRIO_STRENGTH)/p4-$$mode-teams-deduce-all-s$$seed.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --teams --mode $$mode --policy deduce \
	    --games 1000 --seed $$seed --chunk 50 --out $$out || exit 1; \
	  for k in 0 1 2 3; do \
	    pol=$$(echo deduce,deduce,deduce,deduce | awk -F, -v k=$$k -v p=infer:64 '{$$(k+1)=p; OFS=","; print $$1,$$2,$$3,$$4}'); \
	    out=$(TRIO_STRENGTH)/p4-$$mode-teams-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	    $(VENV)/bin/trilab simulate trio-cards --players 4 --teams --mode $$mode --policy $$pol \
	      --games 1000 --seed $$seed --chunk 50 --out $$out || exit 1; done; \
	  $(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p4-$$mode-teams-infer-64-vs-deduce \
	    --paired $(TRIO_STRENGTH)/p4-$$mode-teams-deduce-all-s$$seed.csv || exit 1; done
	# infer:64 against deduce at 5 and 6 players (simple), pre-registered on seeds 6700
	# (5 players) and 6800 (6 players) in session 28 before either is played: is infer
	# still the stronger policy there (the tables in every seat cost about 6 and 19 core-hours)?
	for n in 5 6; do \
	  seed=$$(test $$n = 5 && echo 6700 || echo 6800); \
	  out=$(TRIO_STRENGTH)/p$$n-simple-deduce-all-s$$seed.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players $$n --policy deduce \
	    --games 1000 --seed $$seed --chunk 50 --out $$out || exit 1; \
	  for k in $$(seq 0 $$((n - 1))); do \
	    pol=$$(seq $$n | awk -v k=$$k '{printf "%s%s", (NR > 1 ? "," : ""), (NR == k + 1 ? "infer:64" : "deduce")}'); \
	    out=$(TRIO_STRENGTH)/p$$n-simple-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	    $(VENV)/bin/trilab simulate trio-cards --players $$n --policy $$pol \
	      --games 1000 --seed $$seed --chunk 50 --out $$out || exit 1; done; \
	  $(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/p$$n-simple-infer-64-vs-deduce \
	    --paired $(TRIO_STRENGTH)/p$$n-simple-deduce-all-s$$seed.csv || exit 1; done
	# The other 5- and 6-player configurations, pre-registered in session 29 before any is
	# played: 5 players spicy on seed 6900, 6 players spicy on 7000, 6-player teams (partners
	# p and p+3; the infer seat's partner plays deduce) simple on 7100 and spicy on 7200.
	# Confirmed when the paired gain's interval is above zero; where it is not, that
	# configuration's seat table is played with deduce only (already in results/trio-cards/deduce)
	for cfg in 5:spicy::6900 6:spicy::7000 6:simple:--teams:7100 6:spicy:--teams:7200; do \
	  n=$$(echo $$cfg | cut -d: -f1); mode=$$(echo $$cfg | cut -d: -f2); \
	  teams=$$(echo $$cfg | cut -d: -f3); seed=$$(echo $$cfg | cut -d: -f4); \
	  name=p$$n-$$mode$$(test -n "$$teams" && echo -teams); \
	  out=$(TRIO_STRENGTH)/$$name-deduce-all-s$$seed.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players $$n --mode $$mode $$teams --policy deduce \
	    --games 1000 --seed $$seed --chunk 50 --out $$out || exit 1; \
	  for k in $$(seq 0 $$((n - 1))); do \
	    pol=$$(seq $$n | awk -v k=$$k '{printf "%s%s", (NR > 1 ? "," : ""), (NR == k + 1 ? "infer:64" : "deduce")}'); \
	    out=$(TRIO_STRENGTH)/$$name-infer-64-vs-deduce-seat$$k.csv; test -f $$out || \
	    $(VENV)/bin/trilab simulate trio-cards --players $$n --mode $$mode $$teams --policy $$pol \
	      --games 1000 --seed $$seed --chunk 50 --out $$out || exit 1; done; \
	  $(PY) -m trilab.analysis.trio_cards_strength $(TRIO_STRENGTH)/$$name-infer-64-vs-deduce \
	    --paired $(TRIO_STRENGTH)/$$name-deduce-all-s$$seed.csv || exit 1; done
	for mode in simple spicy; do \
	  out=results/trio-cards/deduce/p3-$$mode-deduce.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 3 --mode $$mode --policy deduce \
	    --games 20000 --seed 2026 --out $$out || exit 1; \
	  out=results/trio-cards/deduce/p4-$$mode-deduce.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode $$mode --policy deduce \
	    --games 8000 --seed 2026 --chunk 500 --out $$out || exit 1; \
	  out=results/trio-cards/deduce/p4-$$mode-teams-deduce.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode $$mode --teams --policy deduce \
	    --games 10000 --seed 2026 --chunk 500 --out $$out || exit 1; \
	  out=results/trio-cards/deduce/p5-$$mode-deduce.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 5 --mode $$mode --policy deduce \
	    --games 6000 --seed 2026 --chunk 100 --out $$out || exit 1; done
	for mode in simple spicy; do \
	  out=results/trio-cards/deduce/p6-$$mode-teams-deduce.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 6 --mode $$mode --teams --policy deduce \
	    --games 8500 --seed 2026 --chunk 100 --out $$out || exit 1; \
	  out=results/trio-cards/deduce/p6-$$mode-deduce.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 6 --mode $$mode --policy deduce \
	    --games 5500 --seed 2026 --chunk 100 --out $$out || exit 1; done
	# infer:64 in every seat (the strongest policy; about 5 games a second at 3 players
	# since session 27; a table stopped midway resumes from its saved chunks).  10,000 games: at most
	# +-1 point per seat (the 20,000 first planned were cut to what a session allows)
	for mode in simple spicy; do \
	  out=results/trio-cards/infer/p3-$$mode-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 3 --mode $$mode --policy infer:64 \
	    --games 10000 --seed 2026 --chunk 100 --out $$out || exit 1; done
	# 4 players: about 1 s a game since session 27 (about 2 hours; confirmed stronger on seed 6300)
	out=results/trio-cards/infer/p4-simple-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode simple --policy infer:64 \
	    --games 8000 --seed 2026 --chunk 100 --out $$out || exit 1
	# 4 players, spicy: confirmed stronger on seed 6600 (session 27); about 2 core-hours
	out=results/trio-cards/infer/p4-spicy-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode spicy --policy infer:64 \
	    --games 8000 --seed 2026 --chunk 100 --out $$out || exit 1
	# 4-player teams: under 0.2 s a game (confirmed stronger on seeds 6400 and 6500);
	# 10,000 games like the deduce team tables
	for mode in simple spicy; do \
	  out=results/trio-cards/infer/p4-$$mode-teams-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 4 --mode $$mode --teams --policy infer:64 \
	    --games 10000 --seed 2026 --chunk 100 --out $$out || exit 1; done
	# 5 players, simple: confirmed stronger on seed 6700 (session 28); 6,000 games like the
	# deduce table (done in session 31: 8,780 s of wall time, most of it on two cores)
	out=results/trio-cards/infer/p5-simple-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 5 --mode simple --policy infer:64 \
	    --games 6000 --seed 2026 --chunk 100 --out $$out || exit 1
	# 5 players, spicy: confirmed stronger on seed 6900 (session 30, +2.7 pp); done in
	# session 32 (8,589 s of wall time, most of it on two cores: about 4.5 core-hours)
	out=results/trio-cards/infer/p5-spicy-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 5 --mode spicy --policy infer:64 \
	    --games 6000 --seed 2026 --chunk 100 --out $$out || exit 1
	# 6 players, spicy: not confirmed on seed 7000 (session 33, +0.5 pp [-0.4, +1.4]), so
	# its seat table between strong players stays the deduce one (above)
	# 6-player teams: simple confirmed stronger on seed 7100, spicy on 7200 (session 33,
	# +4.5 and +3.4 pp); a team game is short (about 2.6 s of one core with infer:64 in
	# every seat); 8,500 games like the deduce team tables.  The 6-player tables run on
	# MC_JOBS processes (the same tables on any number) and before the simple one (cheaper)
	for mode in simple spicy; do \
	  out=results/trio-cards/infer/p6-$$mode-teams-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 6 --mode $$mode --teams \
	    --policy infer:64 --games 8500 --seed 2026 --chunk 100 --out $$out \
	    --jobs $(MC_JOBS) || exit 1; done
	# 6 players, simple: confirmed stronger on seed 6800 (session 29, +1.1 pp); about 10.5 s
	# of one core a game (measured in session 36), so about 16 core-hours; 5,500 games
	# like the deduce table
	out=results/trio-cards/infer/p6-simple-infer-64.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 6 --mode simple --policy infer:64 \
	    --games 5500 --seed 2026 --chunk 100 --out $$out --jobs $(MC_JOBS) || exit 1
	# Does the last team of a 6-player team game win more than a third? Pre-registered in
	# session 35 (docs/findings.md) on fresh seeds, deduce in every seat, 10,000 games a mode
	for cfg in simple:9100 spicy:9200; do \
	  mode=$$(echo $$cfg | cut -d: -f1); seed=$$(echo $$cfg | cut -d: -f2); \
	  out=$(TRIO_STRENGTH)/p6-$$mode-teams-deduce-all-s$$seed.csv; test -f $$out || \
	  $(VENV)/bin/trilab simulate trio-cards --players 6 --mode $$mode --teams --policy deduce \
	    --games 10000 --seed $$seed --chunk 500 --out $$out || exit 1; done

bench: install
	$(PY) benchmarks/bench_cli.py --cli 2 6 --tt 5 6 7
	$(PY) benchmarks/bench_trike.py --sizes 5 6 --scaling 7
	$(PY) benchmarks/bench_trike.py --resume 0.25 0.5 0.75
	$(PY) benchmarks/bench_montecarlo.py --note "$(BENCH_NOTE)"
	$(PY) benchmarks/bench_agents.py --note "$(BENCH_NOTE)"
	$(PY) benchmarks/bench_timed_moves.py --note "$(BENCH_NOTE)"
	$(PY) benchmarks/bench_unit_order.py --plies 6 5 4 --note "$(BENCH_NOTE)"
	$(PY) benchmarks/bench_eager_split.py --budgets 4e6 16e6 --note "$(BENCH_NOTE)"
	$(PY) benchmarks/bench_compile.py

results: install results-mc
	for n in 2 3 4 5 6; do $(VENV)/bin/trilab solve trike --size $$n || exit 1; done
	$(VENV)/bin/trilab solve trike --size 7 --jobs 2 --tt-mb 2048
	# every reply to every size-7 opening, with margin and remoteness (about 4 minutes on one
	# core): what `trilab explore` shows after an opening, beyond a request's time limit
	$(VENV)/bin/trilab solve trike --size 7 --split replies --tt-mb 1024 \
	  --out results/trike/replies/size-7.csv
	for n in 2 3 4 5 6 7; do $(VENV)/bin/trilab solve trike --size $$n --method dfpn \
	  --win-loss-only --jobs 2 || exit 1; done  # the same maps by proof-number search
	for n in 2 3 4 5; do $(VENV)/bin/trilab solve trike --size $$n --method retrograde \
	  --out results/trike/retrograde/size-$$n.csv --db results/trike/db/size-$$n.npz || exit 1; done
	$(MAKE) results-balance report

# Pie-rule balance: exact from the opening tables (instant), then agent games per
# opening class: swap maps between mcts-trap:50000 players (the agent calibrated on the
# solved sizes 6-8, results-calibration), sequential: batches of 10 games a class until
# its interval leaves 50% or it has 100 games (sizes 9-13: about +-10 points at worst)
# or 50 (sizes 14-19: about +-14; their games cost 2-4 times more). Hours per size from 10 on: run it again to
# go on (resumable per batch; a size's tables appear when it is done). The maps of sizes
# 9-10 between mcts-solve:50000 players came first and are kept beside them.
results-balance: install
	$(VENV)/bin/trilab balance trike --sizes 2-8 --exact
	$(VENV)/bin/trilab balance trike --sizes 9-10 --agent mcts-solve:50000 --games 10 \
	  --max-games 100 --seed 2026
	for n in 9 10 11 12 13 14 15 16 17 18 19; do \
	  $(VENV)/bin/trilab balance trike --sizes 9-$$n --agent mcts-trap:50000 --games 10 \
	    --max-games 9-13:100,14-19:50 --seed 2026 || exit 1; done

# The MCTS agent in the simulated games (one core, about 1.5 hours in all):
# Tabula Trivium with random playouts against random, greedy and itself, then
# greedy playouts cut after 4 turns against greedy (both orders, MCTS_GAMES each)
# and itself (MCTS_SELF_GAMES); Trio board mcts:1500 and mcts-greedy:1000:4 in seat 0
# or 2 against greedy, and mcts-greedy:1000:4 in every seat under each Fortress reading
# (MCTS_SELF_GAMES each, about 7 minutes on 2 cores).
MCTS_GAMES ?= 400
MCTS_SELF_GAMES ?= 4000
results-mcts: install
	for pol in mcts:200,random random,mcts:200 mcts:200,greedy greedy,mcts:200 mcts:200 \
	    mcts-greedy:200:4,greedy greedy,mcts-greedy:200:4; do \
	  $(VENV)/bin/trilab simulate tabula-trivium --policy $$pol --games $(MCTS_GAMES) \
	    --seed 2026 --chunk 10 --jobs $(MC_JOBS) || exit 1; done
	$(VENV)/bin/trilab simulate tabula-trivium --policy mcts-greedy:200:4 \
	  --games $(MCTS_SELF_GAMES) --seed 2026 --chunk 20 --jobs $(MC_JOBS)
	# the seat study at a second budget (issue 24): 800 games, about 50 min on one core
	$(VENV)/bin/trilab simulate tabula-trivium --policy mcts-greedy:1000:4 \
	  --games 800 --seed 2026 --chunk 10 --jobs $(MC_JOBS)
	for pol in mcts:1500,greedy,greedy greedy,greedy,mcts:1500 \
	    mcts-greedy:1000:4,greedy,greedy greedy,greedy,mcts-greedy:1000:4; do \
	  $(VENV)/bin/trilab simulate trio-board --fortress sides --policy $$pol \
	    --games $(MCTS_GAMES) --seed 2026 --chunk 10 --jobs $(MC_JOBS) || exit 1; done
	for f in sides row3 general; do \
	  $(VENV)/bin/trilab simulate trio-board --fortress $$f --policy mcts-greedy:1000:4 \
	    --games $(MCTS_SELF_GAMES) --seed 2026 --chunk 10 --jobs $(MC_JOBS) || exit 1; done
	# the Trio board seat study at a second budget, on the flat part of the ladder (issue 24)
	$(VENV)/bin/trilab simulate trio-board --fortress sides --policy mcts-greedy:4000:4 \
	  --games 1000 --seed 2026 --chunk 20 --jobs $(MC_JOBS)
	$(VENV)/bin/trilab report tabula-trivium
	$(VENV)/bin/trilab report trio-board

# The one-page report of everything in results/ (results/report.html).
report: install
	$(VENV)/bin/trilab report

# Monte Carlo studies: MC_GAMES games per table (1,000,000 by default; Tabula Trivium
# greedy vs greedy about 400 games/s per core), MC_MIXED_GAMES for greedy vs random
# (decided every time, so fewer games say as much).
MC_GAMES ?= 1000000
MC_MIXED_GAMES ?= 100000
MC_JOBS ?= 2
# Trio board: 100,000 games make every seat's 95% interval narrower than 0.6 pp.
TRIO_BOARD_GAMES ?= 100000
results-mc: install
	for p in 3 4 5 6; do for mode in simple spicy; do for pol in random memory; do \
	  $(VENV)/bin/trilab simulate trio-cards --players $$p --mode $$mode --policy $$pol \
	    --games $(MC_GAMES) --seed 2026 --jobs $(MC_JOBS) || exit 1; done; done; done
	for p in 4 6; do for mode in simple spicy; do for pol in random memory; do \
	  $(VENV)/bin/trilab simulate trio-cards --players $$p --mode $$mode --teams --policy $$pol \
	    --games $(MC_GAMES) --seed 2026 --jobs $(MC_JOBS) || exit 1; done; done; done
	$(VENV)/bin/trilab simulate tabula-trivium --policy random --games $(MC_GAMES) \
	  --seed 2026 --jobs $(MC_JOBS)
	$(VENV)/bin/trilab simulate tabula-trivium --policy greedy --games $(MC_GAMES) \
	  --seed 2026 --jobs $(MC_JOBS)
	for pol in greedy,random random,greedy; do \
	  $(VENV)/bin/trilab simulate tabula-trivium --policy $$pol --games $(MC_MIXED_GAMES) \
	    --seed 2026 --jobs $(MC_JOBS) || exit 1; done
	for f in sides row3 general; do for pol in random greedy; do \
	  $(VENV)/bin/trilab simulate trio-board --fortress $$f --policy $$pol \
	    --games $(TRIO_BOARD_GAMES) --seed 2026 --jobs $(MC_JOBS) || exit 1; done; done
	$(VENV)/bin/trilab report trio-cards
	$(VENV)/bin/trilab report tabula-trivium
	$(VENV)/bin/trilab report trio-board

# The MCTS agent against the exact solver (about 8 minutes for the first, 3 for
# the second on 2 cores; mcts:1s is a time budget, so its row varies by machine).
results-agents: install
	$(VENV)/bin/trilab strength trike --sizes 7 --positions 1000 \
	  --agents mcts:1000,mcts:10000,mcts:100000,mcts:1s --seed 2026
	$(VENV)/bin/trilab strength trike --openings --sizes 6,7,8 --agents mcts:100000 \
	  --games 10 --seed 2026
	$(MAKE) results-calibration

# Issue 20: the agents against perfect play (openings of sizes 6-8, every recorded
# position after one reply at sizes 7-8) at three budgets: mcts-solve (10 games a class),
# then mcts-trap, the agent of the swap maps (30 games a class), then mcts-squeeze at two
# (30 games a class, 20 min), then against mcts at equal time on sizes 9, 13 and 19
# (about 3.8 hours in all by the runs' recorded times, some on two threads).
results-calibration: install
	for n in 2000 10000 50000; do \
	  $(VENV)/bin/trilab strength trike --openings --sizes 6,7,8 --agents mcts-solve:$$n \
	    --games 10 --seed 2026 || exit 1; \
	  $(VENV)/bin/trilab strength trike --replies --sizes 7,8 --agents mcts-solve:$$n \
	    --games 2 --seed 2026 || exit 1; done
	for n in 2000 10000 50000; do \
	  $(VENV)/bin/trilab strength trike --openings --sizes 6,7,8 --agents mcts-trap:$$n \
	    --games 30 --seed 2026 || exit 1; \
	  $(VENV)/bin/trilab strength trike --replies --sizes 7,8 --agents mcts-trap:$$n \
	    --games 2 --seed 2026 || exit 1; done
	for n in 2000 10000; do \
	  $(VENV)/bin/trilab strength trike --openings --sizes 6,7,8 --agents mcts-squeeze:$$n \
	    --games 30 --seed 2026 || exit 1; \
	  $(VENV)/bin/trilab strength trike --replies --sizes 7,8 --agents mcts-squeeze:$$n \
	    --games 2 --seed 2026 || exit 1; done
	$(VENV)/bin/trilab duel trike --size 9 --agents mcts-solve:0.01s,mcts:0.01s --games 100 --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-solve:0.015s,mcts:0.015s --games 100 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 19 --agents mcts-solve:0.02s,mcts:0.02s --games 60 --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:0.015s,mcts:0.015s --games 100 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 9 --agents mcts-trap:0.01s,mcts:0.01s --games 100 --seed 2026
	$(VENV)/bin/trilab duel trike --size 19 --agents mcts-trap:0.02s,mcts:0.02s --games 60 --seed 2026
	$(VENV)/bin/trilab duel trike --size 9 --agents mcts-trap:0.01s@2,mcts:0.01s --games 100 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:0.015s@2,mcts:0.015s --games 200 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 19 --agents mcts-trap:0.02s@2,mcts:0.02s --games 60 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:0.05s@2,mcts:0.05s --games 100 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:30000,mcts:30000 --games 60 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:10000,mcts:10000 --games 100 \
	  --seed 2026
	# the issue's own pairing: mcts:10000 against the new agent given mcts:10000's time a
	# move (8.4 ms, measured in the duel above), on one core and on two
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:0.0084s,mcts:10000 --games 200 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-trap:0.0084s@2,mcts:10000 --games 200 \
	  --seed 2026
	# mcts-squeeze (session 14: mcts-trap whose playouts squeeze the pawn), the same
	# pairings; size 13 on a seed not used while the agent was chosen (2027)
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-squeeze:0.0084s@2,mcts:10000 \
	  --games 400 --seed 2027
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-squeeze:0.0084s,mcts:10000 \
	  --games 200 --seed 2027 --jobs 2
	$(VENV)/bin/trilab duel trike --size 9 --agents mcts-squeeze:0.01s@2,mcts:0.01s --games 100 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 19 --agents mcts-squeeze:0.02s@2,mcts:0.02s --games 60 \
	  --seed 2026
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-squeeze:0.05s@2,mcts:0.05s --games 100 \
	  --seed 2026
	# the issue's pairing at matched time (session 19): each move of mcts-squeeze as long
	# as mcts:10000 takes on the same position at that moment (--equal-time)
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-squeeze:0.0084s@2,mcts:10000 \
	  --games 400 --seed 2050 --equal-time
	# the same pairing on sizes 9 and 19 (session 20)
	$(VENV)/bin/trilab duel trike --size 9 --agents mcts-squeeze:0.0084s@2,mcts:10000 \
	  --games 400 --seed 2070 --equal-time
	$(VENV)/bin/trilab duel trike --size 19 --agents mcts-squeeze:0.0084s@2,mcts:10000 \
	  --games 200 --seed 2071 --equal-time
	# the confirmation of the issue's 70% on size 13, fixed before it ran (session 20):
	# 2,000 games on a fresh seed, the machine otherwise idle (about 35 minutes)
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-squeeze:0.0084s@2,mcts:10000 \
	  --games 2000 --seed 2080 --equal-time --out-dir results/agents/confirmation
	# the same for one tree grown by two threads (@2t, session 23), fixed before it ran after
	# one 200-game trial (seed 6001: 76.5%; @2 on that seed 71.0%): 2,000 games, fresh seed
	$(VENV)/bin/trilab duel trike --size 13 --agents mcts-squeeze:0.0084s@2t,mcts:10000 \
	  --games 2000 --seed 6100 --equal-time --out-dir results/agents/confirmation

# Size 8 takes hours: win/loss only, resumable (run again to continue; a finished
# run resumes from size-8.replies.json in seconds), then the second proofs.
results-8: install
	$(VENV)/bin/trilab solve trike --size 8 --win-loss-only --jobs 2 --tt-mb 4096 \
	  --time-limit $(or $(SECONDS_LIMIT),3600)
	$(VENV)/bin/trilab confirm trike --size 8 --sample 1 --jobs 2 \
	  --time-limit $(or $(SECONDS_LIMIT),3600)
	$(VENV)/bin/trilab margins trike --size 8 --remoteness --time-limit $(or $(SECONDS_LIMIT),3600)
	$(VENV)/bin/trilab margins trike --size 8 --keys whole --time-limit $(or $(SECONDS_LIMIT),3600)
	$(VENV)/bin/trilab solve trike --size 8 --win-loss-only --tt-mb 4096  # the table with them

# Size 9 takes days: win/loss, the moves after each answer as resumable units (the default
# split from size 9), two search threads on one table; run again to continue from
# results/trike/size-9.checkpoint.json (commit it after each run).  Then the second proof
# of each proven class (one seeded refuted reply, or the winning one), re-proven unit by
# unit with whole-position keys (size-9.confirmations.json; nothing to do until a class is
# proven; each step has its own time limit)
results-9: install
	$(VENV)/bin/trilab solve trike --size 9 --win-loss-only --threads 2 --tt-mb 8192 \
	  --time-limit $(or $(SECONDS_LIMIT),3600)
	$(VENV)/bin/trilab confirm trike --size 9 --sample 1 --threads 2 --tt-mb 8192 \
	  --time-limit $(or $(SECONDS_LIMIT),3600)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
	find . -name __pycache__ -not -path './$(VENV)/*' -prune -exec rm -rf {} +
