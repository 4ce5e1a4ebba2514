# hetlab — one GNU Makefile. `make help` lists the targets.
#
# Sources are found by wildcard: every .c under sim/ policies/ traces/ config/
# analysis/ experiments/ live/ goes into libhetlab.a, cli/*.c into the hetlab binary,
# tests/unit/test_*.c become one cmocka runner each, bench/*.c one benchmark each.

BUILD   ?= build
PREFIX  ?= /usr/local
# Installation directories (GNU names; DESTDIR is prepended to each).
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DOCDIR      ?= $(PREFIX)/share/doc/hetlab
DATADIR     ?= $(PREFIX)/share/hetlab
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/vendor-completions
SYSTEMDDIR  ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR  ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
PKGS     = gsl sqlite3 jansson zlib libcrypto hwloc libmicrohttpd
CC      ?= cc
OPT     ?= -O2 -g
WARN     = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wwrite-strings
# snprintf truncating a long name into a fixed-size field is intended.
WARN    += -Wno-format-truncation
CFLAGS  += -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) -MMD -MP -I. $(SANFLAGS) $(CHECKS) $(CPPFLAGS)
LDFLAGS += $(SANFLAGS)
# NO_DEPS=1 (a package build) skips scripts/deps.sh: the build system
# installed the build dependencies.
DEPS_OK  = $(if $(NO_DEPS),,$(BUILD)/.deps-ok)

PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
CFLAGS += $(PKG_CFLAGS)
LIBS    = $(PKG_LIBS) -lm -ldl

LIB_SRC  = $(wildcard sim/*.c policies/*.c traces/*.c config/*.c analysis/*.c experiments/*.c live/*.c live/exec/*.c)
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
EMBED    = scenarios/default.json scenarios/guian.json $(wildcard scenarios/catalog/*.json) \
           traces/data/alibaba-gpu-v2023-openb/published_alloc.csv
HETLAB   = $(BUILD)/hetlab

.PHONY: all bins test-serial run test unit scenario-test doc-test test-live test-shadow test-shared asan valgrind bench install uninstall clean deps help golden man completion test-cli test-pkg test-prom package test-scripts \
        fuzz fuzz-smoke fuzz-build fuzz-bins test-bad test-layout
all: $(DEPS_OK) $(HETLAB)

help:
	@echo "make run        install missing packages, build, run the default scenario"
	@echo "make test       install missing packages, build, run unit and scenario tests"
	@echo "make test-shared  tests on the shared traces the repository does not carry (\$$HETLAB_TRACES)"
	@echo "make asan       the tests under AddressSanitizer + UBSan (build-asan/)"
	@echo "make valgrind   the unit tests under valgrind (every binary; failures listed at the end)"
	@echo "make fuzz       the libFuzzer targets, FUZZ_SECONDS each (clang; build-fuzz/)"
	@echo "make fuzz-smoke each libFuzzer target for FUZZ_SMOKE_SECONDS (CI)"
	@echo "make bench      benchmarks (not part of make test)"
	@echo "make golden     regenerate the checked-in scenario test summaries (on purpose only)"
	@echo "make install    install the binary, man pages, completions, docs, examples, systemd units"
	@echo "                into \$$DESTDIR\$$PREFIX ($(PREFIX)); make uninstall removes them"
	@echo "make man        man pages into $(BUILD)/man (from the command table, as --help)"
	@echo "make package    build the Debian package into $(BUILD)/pkg (dpkg-buildpackage; minutes)"
	@echo "make test-pkg   build the .deb and run it in a fresh Debian 12 root (debootstrap)"
	@echo "make test-prom  import a run into Prometheus (promtool) and scrape the live daemon"

# Installs the Debian packages we need, once per build folder.
ifneq ($(DEPS_OK),)
$(DEPS_OK): scripts/deps.sh
	@sh scripts/deps.sh
	@mkdir -p $(@D) && touch $@
endif
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

scenario-test: $(HETLAB) $(BUILD)/bench/scale
	@sh tests/scenario/run.sh $(HETLAB)

# The tests run one after another; what they run is built first on every
# core (NPROC, the machine's by default), whatever -j make was given.
NPROC ?= $(shell nproc 2>/dev/null || echo 1)
PAR = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
bins: all $(TEST_BIN) $(SHARED_BIN) $(BUILD)/bench/scale man completion

test:
	@$(MAKE) --no-print-directory $(PAR) bins
	@$(MAKE) --no-print-directory test-serial
test-serial: all unit scenario-test test-bad doc-test test-cli test-scripts test-live test-shadow test-layout

# Every command shown in README.md and docs/ (docs/doctest.md).
doc-test: $(HETLAB)
	@sh tests/doc/run.sh $(HETLAB)

# The command line: help, exit statuses, man pages and completions.
test-cli: $(HETLAB) man completion
	@sh tests/cli/run.sh $(HETLAB) $(BUILD)

# The build's scripts, with fakes on PATH and no root side effects:
# scripts/deps.sh waiting for a held dpkg lock, scripts/package.sh (make
# package), the package description's trace formats.
test-scripts:
	@sh tests/scripts/run.sh

# The bad-input catalogue (tests/bad/README.md): exit status and message of
# every kind of bad input.
test-bad: $(HETLAB)
	@sh tests/bad/run.sh $(HETLAB)

# The source layout (docs/engine.md, "Source layout"): file sizes, the
# folders' include and call rules, no call circles, pure policies.
test-layout: $(HETLAB)
	@sh tests/layout/run.sh $(BUILD)

# Live mode against real processes on this host (tests/live/run.sh).
test-live: $(HETLAB)
	@sh tests/live/run.sh $(HETLAB)

# `hetlab shadow` beside fake squeue / sinfo / sacct (no Slurm needed).
test-shadow: $(HETLAB)
	@sh tests/shadow/run.sh $(HETLAB)

# Needs the trace directory ($$HETLAB_TRACES, else ../shared/traces).
test-shared: $(SHARED_BIN) $(HETLAB)
	@UNIT_LABEL=shared-unit sh tests/run-unit.sh $(SHARED_BIN)
	@sh tests/shared/run.sh $(HETLAB)

# Against a real local Slurm cluster (tests/slurm/): `hetlab sweep --slurm`
# (prints SKIP when Slurm cannot be installed or started), then the Slurm
# executor, `hetlab live --executor slurm`, the per-failure trust checks,
# the soak (kill -9 and slurmctld restarts under a few hundred jobs) and
# what deploy/ ships (these fail, with the daemons' logs, when the cluster
# does not start), and the Slurm twin's pipeline (tests/slurm/twin.sh: a
# small workload on the real Slurm, twin build, replay, twin check; its
# cluster's ports are offset by 2000), and hetlab shadow beside it
# (tests/slurm/shadow.sh: bench/forecast-slurm.sh --test, ports offset by
# 4000, /tmp/hetlab-slurm-4000.lock). Each starts its own cluster on fixed
# ports: hold /tmp/hetlab-slurm.lock (flock) around it when others may run one.
test-slurm: $(HETLAB)
	@sh tests/slurm/run.sh $(HETLAB)
	@sh tests/slurm/twin.sh $(HETLAB)
	@sh tests/slurm/shadow.sh $(HETLAB)
	@sh tests/slurm/exec.sh $(HETLAB)
	@sh tests/slurm/live.sh $(HETLAB)
	@sh tests/slurm/compact.sh $(HETLAB)
	@sh tests/slurm/trust.sh $(HETLAB)
	@sh tests/slurm/soak.sh $(HETLAB)
	@sh tests/slurm/deploy.sh $(HETLAB)

golden: $(HETLAB)
	@sh tests/scenario/run.sh $(HETLAB) --regenerate

# The tests that run hetlab's code paths, under AddressSanitizer and UBSan
# and with the core's invariant checks (sim/check.h, -DHL_CHECKS):
# unit, scenario, bad-input, live and shared-trace tests (the doc, CLI and
# layout tests repeat those paths or read no code).
ASAN_VARS = BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
    SANFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined" CHECKS=-DHL_CHECKS HETLAB_SANITIZED=1
asan:
	$(MAKE) $(PAR) $(ASAN_VARS) bins
	$(MAKE) $(ASAN_VARS) all unit scenario-test test-bad test-live test-shared

# Every unit-test binary under valgrind; the failures are listed at the end.
valgrind: $(TEST_BIN)
	@UNIT_LABEL=valgrind UNIT_RUNNER="valgrind -q --error-exitcode=1 --leak-check=full" \
	    sh tests/run-unit.sh $(TEST_BIN)

# libFuzzer targets (tests/fuzz/, docs/fuzzing.md), built with clang under
# ASan + UBSan into $(FUZZ_BUILD). `make fuzz` runs each for FUZZ_SECONDS,
# `make fuzz-smoke` for FUZZ_SMOKE_SECONDS (CI); FUZZ_TARGETS picks some.
FUZZ_BUILD ?= build-fuzz
FUZZ_SRC = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 4
FUZZ_TARGETS ?=
FUZZ_SAN = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
           -Wno-unknown-warning-option

fuzz-build: $(HETLAB)
	@sh scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory $(PAR) BUILD=$(FUZZ_BUILD) CC=clang OPT="-O1 -g" SANFLAGS="$(FUZZ_SAN)" fuzz-bins

fuzz-bins: $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
	@:

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/libhetlab.a
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $< $(BUILD)/libhetlab.a $(LIBS)

fuzz: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(HETLAB) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-smoke: fuzz-build
	@sh tests/fuzz/run.sh $(FUZZ_BUILD) $(HETLAB) $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

bench: $(BENCH_BIN) $(HETLAB)
	@sh bench/run.sh $(BUILD)

# Man pages and completions are generated by the binary from its command
# table (cli/cmdtab.c), the same text as --help.
MAN_STAMP = $(BUILD)/man/.stamp
man: $(MAN_STAMP)
$(MAN_STAMP): $(HETLAB)
	@rm -rf $(BUILD)/man && mkdir -p $(BUILD)/man
	$(HETLAB) help --man > $(BUILD)/man/hetlab.1
	@for c in $$($(HETLAB) help --list | grep -v ' '); do \
		$(HETLAB) help --man $$c > $(BUILD)/man/hetlab-$$c.1 || exit 1; done
	@touch $@

COMPLETION = $(BUILD)/completion/hetlab $(BUILD)/completion/_hetlab
completion: $(COMPLETION)
$(BUILD)/completion/hetlab: $(HETLAB)
	@mkdir -p $(@D)
	$(HETLAB) help --completion bash > $@
$(BUILD)/completion/_hetlab: $(HETLAB)
	@mkdir -p $(@D)
	$(HETLAB) help --completion zsh > $@

# What `make install` puts where; deploy/ (the live-mode systemd units and
# example configuration) is installed when it is there.
DOC_FILES     = README.md $(wildcard docs/*.md)
GRAFANA_FILES = $(wildcard docs/grafana/*.json)
EXAMPLE_FILES = $(wildcard scenarios/*.json)
LIVE_EXAMPLES = $(wildcard scenarios/live/*)
UNIT_FILES    = $(wildcard deploy/systemd/*.service deploy/systemd/*.timer deploy/systemd/*.socket)
CONF_FILES    = $(wildcard deploy/*.json)

install: all man completion
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)/grafana \
	    $(DESTDIR)$(DATADIR)/scenarios/live $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(HETLAB) $(DESTDIR)$(BINDIR)/hetlab
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/completion/hetlab $(DESTDIR)$(BASHCOMPDIR)/hetlab
	install -m 644 $(BUILD)/completion/_hetlab $(DESTDIR)$(ZSHCOMPDIR)/_hetlab
	install -m 644 $(DOC_FILES) $(DESTDIR)$(DOCDIR)/
	$(if $(GRAFANA_FILES),install -m 644 $(GRAFANA_FILES) $(DESTDIR)$(DOCDIR)/grafana/)
	install -m 644 $(EXAMPLE_FILES) $(DESTDIR)$(DATADIR)/scenarios/
	$(if $(LIVE_EXAMPLES),install -m 644 $(LIVE_EXAMPLES) $(DESTDIR)$(DATADIR)/scenarios/live/)
	$(if $(UNIT_FILES),install -d $(DESTDIR)$(SYSTEMDDIR) && install -m 644 $(UNIT_FILES) $(DESTDIR)$(SYSTEMDDIR)/)
	$(if $(CONF_FILES),install -d $(DESTDIR)$(SYSCONFDIR)/hetlab && install -m 644 $(CONF_FILES) $(DESTDIR)$(SYSCONFDIR)/hetlab/)

# Removes what install put there (by name, so files of others stay).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/hetlab $(DESTDIR)$(MANDIR)/man1/hetlab.1 $(DESTDIR)$(MANDIR)/man1/hetlab-*.1 \
	    $(DESTDIR)$(BASHCOMPDIR)/hetlab $(DESTDIR)$(ZSHCOMPDIR)/_hetlab
	rm -rf $(DESTDIR)$(DOCDIR) $(DESTDIR)$(DATADIR)
	$(foreach f,$(notdir $(UNIT_FILES)),rm -f $(DESTDIR)$(SYSTEMDDIR)/$(f);)
	$(foreach f,$(notdir $(CONF_FILES)),rm -f $(DESTDIR)$(SYSCONFDIR)/hetlab/$(f);)
	-rmdir $(DESTDIR)$(SYSCONFDIR)/hetlab 2>/dev/null

# The Debian package into $(BUILD)/pkg (scripts/package.sh: dpkg-buildpackage
# -us -uc -b on a copy of the tree, which builds and runs the unit tests;
# DEB_BUILD_OPTIONS=nocheck skips them). scripts/deps.sh pkg installs
# dpkg-dev and debhelper when they are missing.
package:
	@sh scripts/deps.sh pkg
	@sh scripts/package.sh $(BUILD)/pkg

# The Debian package: dpkg-buildpackage, lintian, then the .deb installed
# into a fresh Debian 12 root (debootstrap) running `hetlab run`.
test-pkg:
	@sh tests/pkg/deb.sh

# Prometheus: a simulated run imported with promtool and queried; a real
# Prometheus server scraping the live daemon (skipped without prometheus).
test-prom: $(HETLAB)
	@sh tests/prom/run.sh $(HETLAB)

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
.SECONDARY:
