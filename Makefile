# hetlab — one GNU Makefile. `make help` lists the targets.
#
# Sources are found by wildcard: every .c under sim/ policies/ traces/
# analysis/ live/ goes into libhetlab.a, cli/*.c into the hetlab binary,
# tests/unit/test_*.c become one cmocka runner each, bench/*.c one benchmark each.

BUILD   ?= build
PREFIX  ?= /usr/local
PKGS     = gsl sqlite3 jansson zlib libcrypto hwloc libmicrohttpd
CC      ?= cc
OPT     ?= -O2 -g
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wwrite-strings
# snprintf truncating a long name into a fixed-size field is intended.
WARN    += -Wno-format-truncation
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -MMD -MP -I. $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
DEPS_OK  = $(BUILD)/.deps-ok

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS += $(PKG_CFLAGS)
LIBS    = $(PKG_LIBS) -lm -ldl

LIB_SRC  = $(wildcard sim/*.c policies/*.c traces/*.c analysis/*.c live/*.c)
LIB_OBJ  = $(LIB_SRC:%.c=$(BUILD)/%.o) $(BUILD)/sim/embed.o
CLI_SRC  = $(wildcard cli/*.c)
CLI_OBJ  = $(CLI_SRC:%.c=$(BUILD)/%.o)
TEST_SRC = $(wildcard tests/unit/test_*.c)
TEST_BIN = $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
TEST_HELP = $(BUILD)/tests/testutil.o
SHARED_SRC = $(wildcard tests/shared/test_*.c)
SHARED_BIN = $(SHARED_SRC:tests/shared/%.c=$(BUILD)/tests/shared/%)
BENCH_SRC = $(wildcard bench/*.c)
BENCH_BIN = $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
EMBED    = scenarios/guian.json $(wildcard scenarios/catalog/*.json)
HETLAB   = $(BUILD)/hetlab

.PHONY: all run test unit scenario-test test-live test-shared asan valgrind bench install clean deps help golden
all: $(DEPS_OK) $(HETLAB)

help:
	@echo "make run        install missing packages, build, run the default scenario"
	@echo "make test       install missing packages, build, run unit and scenario tests"
	@echo "make test-shared  tests on the shared traces the repository does not carry (\$$HETLAB_TRACES)"
	@echo "make asan       the tests under AddressSanitizer + UBSan (build-asan/)"
	@echo "make valgrind   the unit tests under valgrind"
	@echo "make bench      benchmarks (not part of make test)"
	@echo "make golden     regenerate the checked-in scenario test summaries (on purpose only)"
	@echo "make install    install hetlab into \$$PREFIX/bin ($(PREFIX))"

# Installs the Debian packages we need, once per build folder.
$(DEPS_OK): scripts/deps.sh
	@sh scripts/deps.sh
	@mkdir -p $(@D) && touch $@
deps: $(DEPS_OK)

$(BUILD)/%.o: %.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

# The default scenario and the hardware catalog are compiled into the binary.
$(BUILD)/sim/embed.o: sim/embed.S $(EMBED) | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) -c $< -o $@

$(BUILD)/libhetlab.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(HETLAB): $(CLI_OBJ) $(BUILD)/libhetlab.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libhetlab.a $(LIBS)

$(BUILD)/tests/testutil.o: tests/testutil.c | $(DEPS_OK)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(TEST_HELP) $(BUILD)/libhetlab.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP) $(BUILD)/libhetlab.a $(LIBS) $(CMOCKA_LIBS)

$(BUILD)/tests/shared/%: $(BUILD)/tests/shared/%.o $(TEST_HELP) $(BUILD)/libhetlab.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(TEST_HELP) $(BUILD)/libhetlab.a $(LIBS) $(CMOCKA_LIBS)

# The allocation-counting test wraps malloc, calloc and realloc.
$(BUILD)/tests/test_alloc: LDFLAGS += -Wl,--wrap=malloc -Wl,--wrap=calloc -Wl,--wrap=realloc

$(BUILD)/bench/%: $(BUILD)/bench/%.o $(BUILD)/libhetlab.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $< $(BUILD)/libhetlab.a $(LIBS)

run: all
	$(HETLAB) run --out run.db
	@echo
	$(HETLAB) report run.db

unit: $(TEST_BIN) $(HETLAB)
	@sh tests/run-unit.sh $(TEST_BIN)

scenario-test: $(HETLAB)
	@sh tests/scenario/run.sh $(HETLAB)

test: all unit scenario-test test-live

# Live mode against real processes on this host (tests/live/run.sh).
test-live: $(HETLAB)
	@sh tests/live/run.sh $(HETLAB)

# Needs the trace directory ($$HETLAB_TRACES, else ../shared/traces).
test-shared: $(SHARED_BIN) $(HETLAB)
	@UNIT_LABEL=shared-unit sh tests/run-unit.sh $(SHARED_BIN)
	@sh tests/shared/run.sh $(HETLAB)

# Against a real local Slurm cluster (tests/slurm/): `hetlab sweep --slurm`
# (prints SKIP when Slurm cannot be installed or started), then the Slurm
# executor, `hetlab live --executor slurm`, the per-failure trust checks,
# the soak (kill -9 and slurmctld restarts under a few hundred jobs) and
# what deploy/ ships (these fail, with the daemons' logs, when the cluster
# does not start). Each starts its own cluster on fixed ports: hold
# /tmp/hetlab-slurm.lock (flock) around it when others may run one.
test-slurm: $(HETLAB)
	@sh tests/slurm/run.sh $(HETLAB)
	@sh tests/slurm/exec.sh $(HETLAB)
	@sh tests/slurm/live.sh $(HETLAB)
	@sh tests/slurm/trust.sh $(HETLAB)
	@sh tests/slurm/soak.sh $(HETLAB)
	@sh tests/slurm/deploy.sh $(HETLAB)

golden: $(HETLAB)
	@sh tests/scenario/run.sh $(HETLAB) --regenerate

asan:
	$(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
	    HETLAB_SANITIZED=1 test test-shared

valgrind: $(TEST_BIN)
	@for t in $(TEST_BIN); do valgrind -q --error-exitcode=1 --leak-check=full $$t || exit 1; done

bench: $(BENCH_BIN) $(HETLAB)
	@sh bench/run.sh $(BUILD)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(HETLAB) $(DESTDIR)$(PREFIX)/bin/hetlab

clean:
	rm -rf build build-asan

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
.SECONDARY:
