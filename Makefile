# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# nodrop: build, install, check, demo.  `make V=1` shows the commands.

VERSION		:= 0.1.0
SOVERSION	:= 0
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/sbin
LIBDIR		?= $(PREFIX)/lib
INCLUDEDIR	?= $(PREFIX)/include
MANDIR		?= $(PREFIX)/share/man
DATADIR		?= $(PREFIX)/share/nodrop
SYSCONFDIR	?= /etc
UNITDIR		?= $(PREFIX)/lib/systemd/system
COMPLETIONDIR	?= $(PREFIX)/share/bash-completion/completions
FISHDIR		?= $(PREFIX)/share/fish/vendor_completions.d
PKGCONFIGDIR	?= $(LIBDIR)/pkgconfig
DESTDIR		?=

B		:= build
CC		?= cc
PKGS		:= json-c yaml-0.1 libmnl
PKG_CFLAGS	= $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS	= $(shell pkg-config --libs $(PKGS) 2>/dev/null)
# The nodrop command links json-c and libyaml statically (their -dev packages ship the archives):
# loading them costs a one-shot `nodrop counters` more CPU than `ethtool -S` spends in all (make
# bench measures it). rdma-core and libm are opened on first use (lib/core/rdma_dl.c,
# libm_dl.c); netlink goes through libmnl, shared, as ethtool and iproute2's dcb load it: the
# command loads libc and libmnl. STATIC_TOOL=0: json-c and libyaml shared too.
STATIC_TOOL	?= 1
ifeq ($(STATIC_TOOL),1)
TOOL_LIBS	= -Wl,-Bstatic -ljson-c -lyaml -Wl,-Bdynamic -lmnl
else
TOOL_LIBS	= $(PKG_LIBS)
endif

WARN		:= -Wall -Wextra -Werror -Wmissing-prototypes -Wstrict-prototypes -Wshadow \
		   -Wformat=2 -Wno-format-nonliteral
CFLAGS		?= -O2 -g
ND_CFLAGS	= -std=c11 -D_GNU_SOURCE -fPIC $(WARN) -Iinclude -Ilib $(PKG_CFLAGS) $(CPPFLAGS) $(CFLAGS)
# CPPFLAGS and LDFLAGS reach every compile and link of what is installed (dpkg-buildflags'
# hardening: _FORTIFY_SOURCE, -z relro -z now; debian/rules passes them)
LDFLAGS		?=
PUB_H		:= include/nodrop.h $(wildcard include/nodrop/*.h)
# lib/counters/counters_builtin.c finds the site's driver counter maps in SYSCONFDIR/nodrop/counters
# and lib/stress/coord_mpi.c the MPI plugin in LIBDIR/nodrop: the values are in a generated header,
# rewritten only when they change, so `make && make install PREFIX=/usr` rebuilds what depends on
# them (see $(B)/datadir.h below)
ND_CFLAGS	+= -I$(B) -DND_VERSION='"$(VERSION)"'
SAN		:= -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-6s %s\n' $(1) $(2)
endif

LIB_SRC		:= $(wildcard lib/*/*.c)
LIB_H		:= $(wildcard lib/*/*.h)
TOOL_SRC	:= $(wildcard tools/*.c)
UNIT_SRC	:= $(wildcard tests/unit/*.c)
LIB_OBJ		:= $(LIB_SRC:%.c=$(B)/%.o)
TOOL_OBJ	:= $(TOOL_SRC:%.c=$(B)/%.o)
SAN_LIB_OBJ	:= $(LIB_SRC:%.c=$(B)/san/%.o)
SAN_TOOL_OBJ	:= $(filter-out $(B)/san/tools/nodrop.o,$(TOOL_SRC:%.c=$(B)/san/%.o))
SAN_UNIT_OBJ	:= $(UNIT_SRC:%.c=$(B)/san/%.o)

# Debian packages: to build, to test, and for the real-kernel VM tier. Checked against a bare
# minbase Debian 12 by `make check-fresh`: every tool a tier runs is here (sh bootstrap installs
# make itself).
DEPS_BUILD	:= gcc libc6-dev make pkg-config libibverbs-dev librdmacm-dev \
		   libyaml-dev libjson-c-dev libmnl-dev
DEPS_CHECK	:= check jq valgrind iproute2 ethtool strace g++ binutils python3 prometheus \
		   systemd udev fish libssl3
DEPS_VM		:= qemu-system-x86 busybox-static cpio kmod xz-utils rdma-core ibverbs-utils \
		   ibverbs-providers perftest python3 strace slurmctld slurmd slurm-client munge \
		   ansible-core prometheus prometheus-node-exporter curl tshark lldpad

.PHONY: FORCE nicsim bench all deps deps-check deps-vm lib tools install uninstall check unit vm valgrind demo \
	clean help sim-ref

all: $(B)/nodrop $(B)/libnodrop.a $(B)/libnodrop.so.$(SOVERSION) $(B)/nodrop.pc

help:
	@echo "sh bootstrap make TARGET   on a bare Debian 12: installs make first (see README)"
	@echo "make              build libnodrop, the nodrop tool and nodrop.pc into $(B)/"
	@echo "make demo         boot the real-kernel testbed: show, apply, audit, counters, triage,"
	@echo "                  a stress run and the simulator on nicsim and soft-RoCE"
	@echo "make check        install what the tests need (apt-get), then: all, unit, valgrind,"
	@echo "                  vm, fuzz-smoke, report-check"
	@echo "make report-check nodrop report's HTML in headless Chromium (DOM, network log, screenshots)"
	@echo "make unit         Check suites under ASan/UBSan, the GPU suite on the CUDA double, tests/cli.sh,"
	@echo "                  tests/layers.py (module floors), tests/api.sh (exports, headers, pkg-config),"
	@echo "                  completion, promtool rule tests, systemd-analyze of the units,"
	@echo "                  no source over 800 lines (tests/long-files.sh)"
	@echo "make quick        the inner loop: build, the Check suites (ASan/UBSan), tests/cli.sh,"
	@echo "                  no source over 800 lines"
	@echo "make valgrind     tests/cli.sh with every run under valgrind"
	@echo "make vm           the real-kernel VM scenarios (one and two guests), then make oracle N=$(ORACLE_N)"
	@echo "make oracle       the property tier: N random cases (default $(ORACLE_N)) with SEED (default new),"
	@echo "                  apply/audit/rollback against dcb -j and ip -j in two guests"
	@echo "make fuzz-smoke   every libFuzzer target, $(FUZZ_SMOKE_TIME) s in all (make fuzz: $(FUZZ_TIME) s each),"
	@echo "                  then make mutate"
	@echo "make mutate       N (default $(MUTATE_N)) mutated counter map directories and report pairs"
	@echo "                  through the sanitizer build, SEED (default $(MUTATE_SEED))"
	@echo "make check-fresh  (root) a debootstrap minbase Debian 12 runs the README's two commands"
	@echo "                  and the installed tool; builds the Debian packages in another and"
	@echo "                  installs them in a third"
	@echo "make check-deb    build the Debian packages (build/deb/), lintian, their contents"
	@echo "make check-gpu    the CUDA provider on a host with an NVIDIA GPU"
	@echo "make bench        ratios against perftest, ethtool/rdma and dcb/ip, measured in one run"
	@echo "make install      install into DESTDIR/PREFIX (default $(PREFIX))"

# Installs what is missing, once; as root (CI) or through sudo (bootstrap --root, the one rule
# for every step that needs root). The test tools include daemons
# (prometheus, node_exporter, slurmd, munged): a policy-rc.d for the install's duration keeps
# their packages from starting them.
define apt_install
	@missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS   installing:" $$missing; \
		root="sh $(CURDIR)/bootstrap --root"; $$root true || exit 1; \
		pol=/usr/sbin/policy-rc.d; own=; \
		if [ ! -e $$pol ]; then printf '#!/bin/sh\nexit 101\n' | $$root tee $$pol >/dev/null && \
			$$root chmod 0755 $$pol && own=1; fi; \
		$$root apt-get update -qq && \
		$$root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
			--no-install-recommends $$missing >/dev/null; rc=$$?; \
		[ -z "$$own" ] || $$root rm -f $$pol; [ $$rc = 0 ] || exit 1; \
	fi
endef

deps: $(B)/.deps
$(B)/.deps: Makefile
	$(call apt_install,$(DEPS_BUILD))
	@# a dependency list that lost a package fails here, by name, not in the middle of the build
	@printf '#include <errno.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 || { echo "make: $(CC)" \
		"cannot find the C library's headers (errno.h): apt-get install libc6-dev" >&2; exit 1; }
	@for m in $(PKGS); do pkg-config --exists $$m || { echo "make: pkg-config cannot find" \
		"$$m: install its -dev package (DEPS_BUILD lists them)" >&2; exit 1; }; done
	@mkdir -p $(B) && touch $@

# command:package for every tool the host tiers run; a list that lost one fails here, by name
TOOLS_CHECK	:= checkmk:check jq:jq valgrind:valgrind ip:iproute2 ethtool:ethtool strace:strace \
		   g++:g++ nm:binutils python3:python3 promtool:prometheus systemd-analyze:systemd \
		   udevadm:udev fish:fish
deps-check: deps
	$(call apt_install,$(DEPS_CHECK))
	@for t in $(TOOLS_CHECK); do c=$${t%%:*}; command -v $$c >/dev/null || [ -x /usr/sbin/$$c ] || \
		{ echo "make: $$c" \
		"is missing: apt-get install $${t#*:} (and add it to DEPS_CHECK)" >&2; exit 1; }; done

deps-vm: deps
	$(call apt_install,$(DEPS_VM))

# Rewritten only when a directory changes, so unchanged ones rebuild nothing.
$(B)/datadir.h: FORCE
	@mkdir -p $(B)
	@printf '%s\n' '/* generated by make: LIBDIR, SYSCONFDIR */' \
		'#define ND_PKGLIBDIR "$(LIBDIR)/nodrop"' '#define ND_SYSCONFDIR "$(SYSCONFDIR)"' >$@.tmp.$$$$; \
	cmp -s $@.tmp.$$$$ $@ && rm -f $@.tmp.$$$$ || mv -f $@.tmp.$$$$ $@

# The shipped driver maps, parsed at build time by the library's own parser into the tables
# lib/counters/counters_builtin.c compiles in: a bad map fails the build with its file and line.
CTR_GEN_OBJ	:= $(B)/tools/gen/ctr_maps_gen.o $(B)/lib/counters/counters_map.o \
		   $(B)/lib/counters/counters.o $(B)/lib/core/str.o $(B)/lib/core/err.o \
		   $(B)/lib/core/file.o
$(B)/ctr_maps_gen: $(CTR_GEN_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^
# the names of the maps, rewritten when one is added or removed (a removed one is no newer file)
$(B)/ctr_maps.list: FORCE
	@mkdir -p $(B)
	@# a file of this process's own: make check's two lanes may both get here at once
	@echo '$(notdir $(wildcard data/counters/*.map))' >$@.tmp.$$$$; \
	cmp -s $@.tmp.$$$$ $@ && rm -f $@.tmp.$$$$ || mv -f $@.tmp.$$$$ $@
$(B)/ctr_maps_builtin.h: $(B)/ctr_maps_gen $(B)/ctr_maps.list $(wildcard data/counters/*.map)
	$(call msg,GEN,$@)
	$(Q)$(B)/ctr_maps_gen data/counters $@.tmp && mv -f $@.tmp $@
$(B)/lib/counters/counters_builtin.o $(B)/san/lib/counters/counters_builtin.o \
$(B)/fuzz/lib/counters/counters_builtin.o: $(B)/ctr_maps_builtin.h
$(B)/lib/counters/counters_builtin.o $(B)/san/lib/counters/counters_builtin.o \
$(B)/fuzz/lib/counters/counters_builtin.o: $(B)/datadir.h
$(B)/lib/stress/coord_mpi.o $(B)/san/lib/stress/coord_mpi.o $(B)/fuzz/lib/stress/coord_mpi.o: $(B)/datadir.h

$(B)/%.o: %.c $(PUB_H) $(LIB_H) tools/*.h | $(B)/.deps
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ND_CFLAGS) -Itools -c -o $@ $<

$(B)/san/%.o: %.c $(PUB_H) $(LIB_H) tools/*.h tests/unit/*.h | $(B)/.deps
	$(call msg,CC-SAN,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ND_CFLAGS) -Itools -O1 $(SAN) -c -o $@ $<

$(B)/libnodrop.a: $(LIB_OBJ)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

# The version script exports exactly the public API (include/nodrop/*.h); tests/api.sh checks it.
$(B)/libnodrop.so.$(SOVERSION): $(LIB_OBJ) lib/libnodrop.map
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libnodrop.so.$(SOVERSION) \
		-Wl,--version-script=lib/libnodrop.map -o $@ $(LIB_OBJ) $(PKG_LIBS)
	$(Q)ln -sf libnodrop.so.$(SOVERSION) $(B)/libnodrop.so

$(B)/nodrop: $(TOOL_OBJ) $(B)/libnodrop.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(B)/libnodrop.a $(TOOL_LIBS)

$(B)/nodrop.pc: Makefile FORCE
	$(call msg,GEN,$@)
	@mkdir -p $(B)
	$(Q)printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
		'Name: libnodrop' 'Description: lossless RDMA fabric state and checks' \
		'Version: $(VERSION)' 'Requires.private: $(PKGS)' \
		'Libs: -L$${libdir} -lnodrop' \
		'Cflags: -I$${includedir}' > $@

# Bash and fish completion, written by the tool from the tables that print its --help
# (tests/completion.sh, tests/completion-fish.sh).
all: $(B)/nodrop.bash $(B)/nodrop.fish
$(B)/nodrop.fish: $(B)/nodrop
	$(call msg,GEN,$@)
	$(Q)$(B)/nodrop --completion fish >$@.tmp && mv -f $@.tmp $@
$(B)/nodrop.bash: $(B)/nodrop
	$(call msg,GEN,$@)
	$(Q)$(B)/nodrop --completion bash >$@.tmp && mv -f $@.tmp $@

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) \
		$(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man5 \
		$(DESTDIR)$(DATADIR)/profiles $(DESTDIR)$(UNITDIR)
	install -m 0755 $(B)/nodrop $(DESTDIR)$(BINDIR)/nodrop
	install -m 0644 $(B)/libnodrop.a $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(B)/libnodrop.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf libnodrop.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/libnodrop.so
	install -d $(DESTDIR)$(INCLUDEDIR)/nodrop
	install -m 0644 include/nodrop.h $(DESTDIR)$(INCLUDEDIR)/
	install -m 0644 include/nodrop/*.h $(DESTDIR)$(INCLUDEDIR)/nodrop/
	install -m 0644 $(B)/nodrop.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 0644 man/*.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 man/*.5 $(DESTDIR)$(MANDIR)/man5/
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 $(B)/nodrop.bash $(DESTDIR)$(COMPLETIONDIR)/nodrop
	install -d $(DESTDIR)$(FISHDIR)
	install -m 0644 $(B)/nodrop.fish $(DESTDIR)$(FISHDIR)/nodrop.fish
	install -m 0644 profiles/*.yaml $(DESTDIR)$(DATADIR)/profiles/
	install -d $(DESTDIR)$(DATADIR)/profiles/scenarios/cdf
	install -m 0644 profiles/scenarios/*.yaml $(DESTDIR)$(DATADIR)/profiles/scenarios/
	install -m 0644 profiles/scenarios/cdf/*.cdf $(DESTDIR)$(DATADIR)/profiles/scenarios/cdf/
	install -d $(DESTDIR)$(DATADIR)/counters
	install -m 0644 data/counters/*.map $(DESTDIR)$(DATADIR)/counters/
	sed 's|/usr/local/sbin/|$(BINDIR)/|' contrib/systemd/nodrop-apply@.service > \
		$(DESTDIR)$(UNITDIR)/nodrop-apply@.service
	sed 's|/usr/local/sbin/|$(BINDIR)/|' contrib/prometheus/nodrop-counters.service > \
		$(DESTDIR)$(UNITDIR)/nodrop-counters.service
	install -m 0644 contrib/prometheus/nodrop-counters.timer $(DESTDIR)$(UNITDIR)/
	install -d $(DESTDIR)$(DATADIR)/prometheus
	install -m 0644 contrib/prometheus/nodrop.rules.yml contrib/prometheus/nodrop-audit.rules.yml \
		$(DESTDIR)$(DATADIR)/prometheus/
	install -m 0755 contrib/nightly/nodrop-nightly $(DESTDIR)$(BINDIR)/nodrop-nightly
	sed 's|/usr/local/sbin/|$(BINDIR)/|' contrib/nightly/nodrop-stress.service > \
		$(DESTDIR)$(UNITDIR)/nodrop-stress.service
	install -m 0644 contrib/nightly/nodrop-stress.timer $(DESTDIR)$(UNITDIR)/
	install -d $(DESTDIR)$(DATADIR)/contrib
	install -m 0755 contrib/slurm/nodrop-stress.sbatch $(DESTDIR)$(DATADIR)/contrib/
	install -m 0644 contrib/nightly/nodrop-stress.cron $(DESTDIR)$(DATADIR)/contrib/
	[ ! -f $(B)/nodrop-mpi.so ] || { install -d $(DESTDIR)$(LIBDIR)/nodrop && \
		install -m 0755 $(B)/nodrop-mpi.so $(DESTDIR)$(LIBDIR)/nodrop/; }

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/nodrop $(DESTDIR)$(BINDIR)/nodrop-nightly $(DESTDIR)$(LIBDIR)/libnodrop.* \
		$(DESTDIR)$(INCLUDEDIR)/nodrop.h $(DESTDIR)$(PKGCONFIGDIR)/nodrop.pc \
		$(DESTDIR)$(COMPLETIONDIR)/nodrop $(DESTDIR)$(FISHDIR)/nodrop.fish \
		$(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8))) \
		$(addprefix $(DESTDIR)$(MANDIR)/man5/,$(notdir $(wildcard man/*.5))) \
		$(DESTDIR)$(UNITDIR)/nodrop-apply@.service \
		$(DESTDIR)$(UNITDIR)/nodrop-counters.service $(DESTDIR)$(UNITDIR)/nodrop-counters.timer \
		$(DESTDIR)$(UNITDIR)/nodrop-stress.service $(DESTDIR)$(UNITDIR)/nodrop-stress.timer
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(LIBDIR)/nodrop $(DESTDIR)$(INCLUDEDIR)/nodrop

# ---- tests ----

$(B)/san/unit: $(SAN_UNIT_OBJ) $(SAN_LIB_OBJ) $(SAN_TOOL_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN) -o $@ $^ $(PKG_LIBS) $(shell pkg-config --libs check)

$(B)/san/nodrop: $(B)/san/tools/nodrop.o $(SAN_TOOL_OBJ) $(SAN_LIB_OBJ)
	$(call msg,LD,$@)
	$(Q)$(CC) $(SAN) -o $@ $^ $(PKG_LIBS)

# A test double of the CUDA driver for the provider's unit tests (tests/gpu/fakecuda.c).
$(B)/libfakecuda.so: tests/gpu/fakecuda.c
	$(call msg,CC,$@)
	$(Q)$(CC) -std=c11 $(WARN) $(CFLAGS) -fPIC -shared -o $@ $<

# The suites run in this many processes at once (tests/unit/main.c); 1: one runner, in order.
UNIT_JOBS	?= $(shell nproc)
UNIT_ENV	= ND_FIXTURES=tests/fixtures ND_NODROP=$(B)/nodrop ND_FAKECUDA=$(B)/libfakecuda.so \
		  ND_UNIT_JOBS=$(UNIT_JOBS)

unit: deps-check $(B)/san/unit $(B)/nodrop $(B)/libfakecuda.so $(B)/libnodrop.so.$(SOVERSION)
	$(call msg,TEST,unit)
	$(Q)$(UNIT_ENV) $(B)/san/unit
	@# check-gpu's own suite on the driver double, so a GPU host finds it working
	$(Q)ND_GPU=1 NODROP_LIBCUDA=$(B)/libfakecuda.so CK_RUN_SUITE=gen_gpu CK_VERBOSITY=silent \
		$(B)/san/unit
	$(Q)tests/cli.sh $(B)/nodrop
	$(Q)tests/completion.sh $(B)/nodrop >$(B)/completion.log || { grep -v '^ok' $(B)/completion.log; exit 1; }
	@sed 's/^/completion: /' $(B)/completion.log | tail -1
	$(Q)tests/completion-fish.sh $(B)/nodrop >$(B)/completion-fish.log || \
		{ grep -v '^ok' $(B)/completion-fish.log; exit 1; }
	@sed 's/^/fish completion: /' $(B)/completion-fish.log | tail -1
	$(Q)tests/layers.py $(B)
	$(Q)tests/api.sh $(B) >$(B)/api.log || { grep -v '^ok' $(B)/api.log; exit 1; }
	@tail -1 $(B)/api.log
	$(Q)tests/compare.py $(B)/nodrop >$(B)/compare.log || { grep -v '^ok' $(B)/compare.log; exit 1; }
	@sed 's/^/compare: /' $(B)/compare.log | tail -1
	$(Q)tests/prometheus.sh >$(B)/prometheus.log || { grep -v '^ok' $(B)/prometheus.log; exit 1; }
	@sed 's/^/prometheus rules: /' $(B)/prometheus.log | tail -1
	$(Q)tests/units.sh $(B) >$(B)/units.log || { grep -v '^ok' $(B)/units.log; exit 1; }
	@grep -o 'nodrop-[^ ]*: exposure [0-9.]* [A-Z]*' $(B)/units.log | sed 's/^/units: /'
	$(Q)tests/long-files.sh

# The inner loop: what changed built (on every core), the Check suites under ASan/UBSan, the
# CLI tier and no source over 800 lines (tests/long-files.sh); `make check` runs everything.
.PHONY: quick
quick: deps-check
	$(Q)$(MAKE) --no-print-directory -j$$(nproc) $(B)/san/unit $(B)/nodrop $(B)/libfakecuda.so
	$(call msg,TEST,unit)
	$(Q)$(UNIT_ENV) $(B)/san/unit >$(B)/quick-unit.log || \
		{ grep -v '^100%\|^Running' $(B)/quick-unit.log; exit 1; }
	@tail -1 $(B)/quick-unit.log | sed 's/^/  unit: /'
	$(Q)tests/cli.sh $(B)/nodrop >$(B)/quick-cli.log || { grep -v '^ok' $(B)/quick-cli.log; exit 1; }
	@tail -1 $(B)/quick-cli.log | sed 's/^/  cli: /'
	$(Q)tests/long-files.sh

valgrind: deps-check $(B)/nodrop
	$(Q)ND_VALGRIND=1 tests/cli.sh $(B)/nodrop

# MPI: nodrop never links an MPI (their ABIs differ); a plugin built with mpicc is loaded under
# mpirun/srun only.
MPICC		?= mpicc
DEPS_MPI	:= openmpi-bin libopenmpi-dev
ifneq ($(shell command -v $(MPICC) 2>/dev/null),)
all: $(B)/nodrop-mpi.so
endif
.PHONY: deps-mpi check-gpu vm-stress2 vm-slurm vm-ansible vm-prometheus vm-units bench-stress
deps-mpi: deps
	$(call apt_install,$(DEPS_MPI))
$(B)/nodrop-mpi.so: lib/stress/coord_mpi_plugin.c $(LIB_H) $(PUB_H) | $(B)/.deps
	$(call msg,MPICC,$@)
	$(Q)$(MPICC) $(ND_CFLAGS) $(LDFLAGS) -DND_MPI_PLUGIN -shared -o $@ $<
# GPU checks for a machine with a GPU and its driver (CI has none): allocation, dmabuf export,
# registration, the host-staged copy cost.
check-gpu: deps-check $(B)/san/unit
	$(call msg,TEST,gpu)
	$(Q)ND_GPU=1 ASAN_OPTIONS=protect_shadow_gap=0 CK_RUN_SUITE=gen_gpu CK_VERBOSITY=verbose \
		$(B)/san/unit
# One VM scenario, tests/vm/$(1).sh, with vm.sh options $(2) (-n GUESTS, -t SECONDS) and this
# build's nodrop; its log in $(B)/vm/$(1).log, the tally (guest 0's) printed.
define vm_scenario
	@mkdir -p $(B)/vm
	$(Q)ND_NODROP=$(B)/nodrop tests/vm/vm.sh $(2) -o $(B)/vm/out/$(1) tests/vm/$(1).sh \
		>$(B)/vm/$(1).log 2>&1 || tests/vm/failed.sh $(B)/vm/$(1).log $(1)
	@tests/vm/summary.sh $(B)/vm/$(1).log $(1)
endef

# The nightly job under Debian's Slurm (munge, slurmctld, slurmd) across two guests.
vm-slurm: deps-check deps-vm $(B)/nodrop
	$(call vm_scenario,slurm,-n 2 -t 600)

# nodrop's metrics through Debian's node_exporter and Prometheus (the shipped rules firing), on
# the guest's loopback.
vm-prometheus: deps-check deps-vm nicsim $(B)/nodrop
	$(call vm_scenario,prometheus,-t 600)

# nodrop-apply@.service's sandbox, read from the unit and enforced in a guest without systemd.
vm-units: deps-check deps-vm nicsim $(B)/nodrop
	$(call vm_scenario,units,-t 300)

# Stress across two guests, and the nightly script's history.
vm-stress2: deps-check deps-vm $(B)/nodrop
	$(call vm_scenario,stress2,-n 2 -t 600)

# The Ansible role contrib/ansible/roles/nodrop through contrib/ansible/site.yml, on nicsim ports.
# Host-driven (vm.sh -H): Ansible runs on the host, nodrop and iproute2 in the guest.
vm-ansible: deps-check deps-vm nicsim $(B)/nodrop
	$(call vm_scenario,ansible,-H -t 600)

# Twice: on one vCPU both ranks and soft-RoCE's transport (kernel work, most of it) share the
# CPU, so its per-packet cost sets both tools' rate; on two, as on a host, they need not.
bench-stress: deps-check deps-vm $(B)/nodrop
	$(Q)for n in 1 2; do \
		ND_VM_SMP=$$n tests/vm/vm.sh -t 2400 -o $(B)/vm/out/bench-stress-$$n \
			tests/bench/stress.sh >$(B)/vm/bench-stress-$$n.log 2>&1 || \
			{ tail -30 $(B)/vm/bench-stress-$$n.log; exit 1; }; \
		grep -E '^(round|stress)' $(B)/vm/bench-stress-$$n.log | sed "s/^/[$$n vCPU] /"; \
	done

# Each scenario boots its own guest (a few seconds each under TCG); the first fails the target.
VM_SCENARIOS	:= tests/vm/smoke.sh tests/vm/nicsim/selftest.sh tests/vm/check.sh tests/vm/apply.sh \
		   tests/vm/counters.sh tests/vm/triage.sh tests/vm/stress.sh tests/vm/peer.sh \
		   tests/vm/path.sh tests/vm/lldpad.sh

nicsim: deps-vm
	$(Q)tests/vm/fetch-kernel.sh >/dev/null
	$(Q)tests/vm/nicsim/build.sh >/dev/null

vm: vm-one vm-two

# The scenarios of one guest each; they leave the host's second core free (check runs the
# host-only tiers beside them): the tool on nicsim and soft-RoCE (vm-nic), then what ships
# around it, the Prometheus rules, the systemd units and the Ansible role (vm-contrib).
.PHONY: vm-one vm-nic vm-contrib vm-two vm-wire check-build check-host
vm-one: vm-nic vm-contrib
vm-nic: deps-check deps-vm deps-mpi nicsim $(B)/nodrop $(B)/libfakecuda.so
	$(Q)$(MAKE) --no-print-directory $(B)/nodrop-mpi.so
	$(Q)set -e; for s in $(VM_SCENARIOS); do \
		tests/vm/vm.sh -o $(B)/vm/out/$$(basename $$s .sh) $$s >$(B)/vm/$$(basename $$s .sh).log 2>&1 || \
			tests/vm/failed.sh $(B)/vm/$$(basename $$s .sh).log $$s; \
		tests/vm/summary.sh $(B)/vm/$$(basename $$s .sh).log $$s; \
	done
vm-contrib:
	$(Q)$(MAKE) --no-print-directory vm-prometheus
	$(Q)$(MAKE) --no-print-directory vm-units
	$(Q)$(MAKE) --no-print-directory vm-ansible

# Two guests at once (both cores): the wire scenarios and the property tier, run alone.
vm-two: vm-wire
	$(Q)$(MAKE) --no-print-directory oracle N=$(ORACLE_N) SEED=$(ORACLE_SEED)

# The scenarios of two guests on one wire.
vm-wire: deps-check deps-vm deps-mpi nicsim $(B)/nodrop $(B)/libfakecuda.so
	$(Q)$(MAKE) --no-print-directory $(B)/nodrop-mpi.so
	$(call vm_scenario,smoke2,-n 2)
	$(call vm_scenario,triage2,-n 2)
	$(Q)$(MAKE) --no-print-directory vm-stress2
	$(Q)$(MAKE) --no-print-directory vm-slurm

# The property tier (tests/vm/oracle.py): seeded random profiles and start states, checked with
# iproute2 as the oracle, in two guests at once. `make check` runs a fixed seed; `make oracle`
# takes N (cases) and SEED (default: a new one, printed, so a failure reruns with SEED=).
# oracle-0 and oracle-1 run the same two shares each in a guest of its own (make check runs one
# in each of its lanes; the guests never talk to each other).
ORACLE_N	?= 200
ORACLE_SEED	?= 1125
# $(1): vm.sh's options (-n 2 for both shares at once); $(2): the share's index, one guest of
# its own (tests/vm/oracle.sh's INDEX); $(3): the name of its log and output directory
define oracle_run
	$(Q)n=$(or $(N),$(ORACLE_N)); seed=$(or $(SEED),$$(date +%s)); \
	printf '  %-6s %s\n' VM "tests/vm/oracle.sh: $$n cases$(if $(2), (share $(2) of 2)), seed $$seed \
		(make oracle SEED=$$seed N=$$n)"; \
	tests/vm/vm.sh $(1) -t $$((n * 4 + 300)) -o $(B)/vm/out/$(3) \
		tests/vm/oracle.sh $$seed $$n 2 $(2) >$(B)/vm/$(3).log 2>&1; rc=$$?; \
	for g in $(B)/vm/out/$(3)/console.log $(B)/vm/out/$(3)/g*/console.log; do \
		[ -f $$g ] || continue; \
		grep -E '^(not ok|# case|oracle:|[0-9]+ passed)' $$g | grep -v '^oracle: seed [0-9]*, ' | tail -25; \
	done; \
	[ $$rc = 0 ] || { tail -20 $(B)/vm/$(3).log; \
		echo "oracle failed: rerun with make oracle SEED=$$seed N=$$n"; exit 1; }
endef
.PHONY: oracle oracle-0 oracle-1
oracle: deps-check deps-vm nicsim $(B)/nodrop
	$(call oracle_run,-n 2,,oracle)
oracle-0 oracle-1: deps-check deps-vm nicsim $(B)/nodrop
	$(call oracle_run,,$(@:oracle-%=%),$@)

# The HTML report in a real browser (Debian's Chromium, headless): DOM, network log, screenshots
# in $(B)/report/.
DEPS_REPORT	:= chromium
.PHONY: deps-report report-check
deps-report: deps
	$(call apt_install,$(DEPS_REPORT))
report-check: deps-check deps-report $(B)/nodrop
	$(call msg,TEST,report)
	$(Q)tests/report.py $(B)/nodrop $(B)/report >$(B)/report.log 2>&1 || \
		{ grep -v '^ok' $(B)/report.log; exit 1; }
	@grep -E 'screenshot|passed' $(B)/report.log | sed 's/^/  report: /'

# Everything the tiers run, built first on every core, so no tier compiles beside another.
check-build: deps-check deps-vm deps-mpi deps-fuzz deps-report nicsim
	$(Q)$(MAKE) --no-print-directory -j$$(nproc) all $(B)/san/unit $(B)/san/nodrop \
		$(B)/libfakecuda.so $(B)/nodrop-mpi.so $(FUZZ_TARGETS:%=$(B)/fuzz/fuzz_%)

# The host-only tiers, one after the other on one core.
CHECK_HOST	:= unit valgrind fuzz-smoke report-check
check-host:
	$(Q)for t in $(CHECK_HOST); do MAKE="$(MAKE)" tests/tier.sh $$t UNIT_JOBS=1 || exit; done

# check: the build, then two lanes at once, one core each: each tier in a lane is one process or
# one one-vCPU guest at a time (UNIT_JOBS=1), each lane ends with one share of the property tier
# (seed ORACLE_SEED); lane two's output is in $(B)/check-lane2.log, shown when both are done.
# Then the two-guest scenarios (vm-wire): their guests need both cores when they run, and wait
# for a third of the time (timed traffic at low rates, Slurm's polling), so mutate (fixed work,
# judged by no clock) runs beside them as SCHED_IDLE (chrt --idle: a CPU only when nothing else
# wants it), two cases at once: one at a time outlasts vm-wire (189 s against 168)
# ($(B)/check-mutate.log). Each tier is timed; the table of times (tests/times.sh) ends the run,
# a failed one too; the lanes are balanced by it.
CHECK_LANE1	:= vm-nic oracle-0
CHECK_LANE2	:= unit valgrind fuzz-targets-smoke report-check vm-contrib oracle-1
check:
	@mkdir -p $(B) && : >$(B)/times.tsv
	$(Q)export ND_TIMES=$(abspath $(B)/times.tsv); t0=$$(date +%s); \
	tier() { MAKE="$(MAKE)" tests/tier.sh "$$@"; }; \
	lane() { for t; do case $$t in oracle-*) s=SEED=$(ORACLE_SEED);; *) s=;; esac; \
		tier $$t UNIT_JOBS=1 $$s || return; done; }; \
	wall() { printf 'wall\t%s\n' $$(( $$(date +%s) - t0 )) >>$$ND_TIMES; tests/times.sh $$ND_TIMES; }; \
	tier check-build || { wall; exit 1; }; \
	lane $(CHECK_LANE2) >$(B)/check-lane2.log 2>&1 & lane2=$$!; \
	lane $(CHECK_LANE1); rc1=$$?; wait $$lane2; rc2=$$?; \
	echo "  ---    lane two, run beside lane one ($(B)/check-lane2.log):"; \
	cat $(B)/check-lane2.log; \
	[ $$rc1 = 0 ] && [ $$rc2 = 0 ] || { wall; exit 1; }; \
	chrt --idle 0 sh -c 'MAKE="$(MAKE)" tests/tier.sh mutate UNIT_JOBS=2' \
		>$(B)/check-mutate.log 2>&1 & \
		mut=$$!; \
	tier vm-wire; rc1=$$?; wait $$mut; rc2=$$?; \
	echo "  ---    mutate, run beside vm-wire as SCHED_IDLE ($(B)/check-mutate.log):"; \
	cat $(B)/check-mutate.log; \
	[ $$rc1 = 0 ] && [ $$rc2 = 0 ] || { wall; exit 1; }; \
	wall
	@echo "make check: all tiers passed"

# The Debian packages (debian/): dpkg-buildpackage from a copy of the tree as git sees it, lintian
# (an E: fails), the packages' contents (tests/deb/run.sh); into build/deb/.
DEPS_DEB	:= debhelper lintian fakeroot dpkg-dev binutils git mpi-default-dev
.PHONY: deps-deb check-deb
deps-deb: deps
	$(call apt_install,$(DEPS_DEB))
check-deb: deps-deb
	$(Q)tests/deb/run.sh

# A bare Debian 12 (debootstrap minbase) runs the README's two commands and the installed tool;
# then the Debian packages are built in a bare one and installed with apt-get in another.
DEPS_FRESH	:= debootstrap git
.PHONY: deps-fresh check-fresh
deps-fresh:
	$(call apt_install,$(DEPS_FRESH))
check-fresh: deps-fresh
	$(Q)tests/fresh/run.sh

# Benchmarks print ratios against the reference tools measured in the same run; they assert no
# timing (see README). SIMREF_BIN: the nodrop-ref program tests/simref/build.sh built into the
# HPCC simulator, for nodrop sim's wall time against it on the scenarios `make sim-ref` runs.
$(B)/sim_bench: tests/bench/sim_bench.c $(B)/libnodrop.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(ND_CFLAGS) -o $@ $< $(B)/libnodrop.a $(PKG_LIBS)
$(B)/ctr_bench: tests/bench/ctr_bench.c $(B)/libnodrop.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(ND_CFLAGS) -o $@ $< $(B)/libnodrop.a $(PKG_LIBS)
$(B)/lldp_bench: tests/bench/lldp_bench.c $(B)/libnodrop.a
	$(call msg,LD,$@)
	$(Q)$(CC) $(ND_CFLAGS) -o $@ $< $(B)/libnodrop.a $(PKG_LIBS)

# The reference simulator's numbers the unit tier holds nodrop sim to (tests/simref/*.ref):
# builds ns3-datacenter from REF, a clone of it (fetches nothing), and reruns every scenario;
# REF_COMMIT names the commit of a tree that has no .git.
sim-ref: $(B)/nodrop
	@test -n "$(REF)" || { echo 'make sim-ref REF=DIR: DIR a clone of inet-tub/ns3-datacenter' \
		'(tests/simref/build.sh names the commit the stored numbers came from)' >&2; exit 2; }
	$(Q)SIMREF_COMMIT=$(REF_COMMIT) tests/simref/all.sh $(B)/nodrop "$(REF)"

bench: bench-stress
bench: deps-check deps-vm nicsim $(B)/nodrop $(B)/sim_bench $(B)/ctr_bench $(B)/lldp_bench
	$(Q)$(B)/sim_bench profiles/scenarios/incast-64.yaml 5
	$(Q)ND_BUILD=$(B) tests/bench/peer.sh
	$(Q)$(B)/sim_bench --scale profiles/scenarios/websearch-30.yaml 3
	$(Q)if [ -n "$(SIMREF_BIN)" ]; then tests/bench/simref.sh "$(SIMREF_BIN)"; else \
		echo "sim against the HPCC simulator: skipped (SIMREF_BIN=PATH: tests/simref/build.sh)"; fi
	$(Q)tests/bench/native.sh
	$(Q)tests/vm/vm.sh -t 900 -o $(B)/vm/out/bench-apply tests/bench/apply.sh \
		>$(B)/vm/bench-apply.log 2>&1 || { tail -30 $(B)/vm/bench-apply.log; exit 1; }
	$(Q)grep -E '^(round|apply)' $(B)/vm/bench-apply.log
	$(Q)tests/vm/vm.sh -t 1200 -o $(B)/vm/out/bench-sample tests/bench/sample.sh \
		>$(B)/vm/bench-sample.log 2>&1 || { tail -30 $(B)/vm/bench-sample.log; exit 1; }
	$(Q)grep -E '^(round|sample)' $(B)/vm/bench-sample.log

demo: deps-check deps-vm nicsim $(B)/nodrop
	$(Q)tests/vm/vm.sh -o $(B)/vm/out/demo tests/vm/demo.sh

clean:
	rm -rf $(B)/*.o $(B)/lib $(B)/tools $(B)/san $(B)/tests $(B)/nodrop $(B)/libnodrop.* \
		$(B)/ctr_maps_gen $(B)/ctr_maps.list $(B)/ctr_maps_builtin.h \
		$(B)/nodrop.pc $(B)/nodrop.bash $(B)/nodrop.fish $(B)/.deps

-include $(wildcard $(B)/*.d)
FORCE:

# ---- fuzz: libFuzzer targets for every input another program or a person writes (clang) ----

DEPS_FUZZ	:= clang libclang-rt-dev
FUZZ_CC		:= clang
FUZZ_SAN	:= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIB_OBJ	:= $(LIB_SRC:%.c=$(B)/fuzz/%.o)
FUZZ_TOOL_OBJ	:= $(filter-out $(B)/fuzz/tools/nodrop.o,$(TOOL_SRC:%.c=$(B)/fuzz/%.o))
# make fuzz: each target this long; make fuzz-smoke: all of them together this long, each its share
FUZZ_TIME	?= 60
FUZZ_SMOKE_TIME	?= 70

# tests/fuzz/fuzz_NAME.c for each NAME; fuzz_args_NAME: its libFuzzer options; fuzz_seeds_NAME:
# shipped files that seed its corpus (read, never written; new inputs go to build/fuzz/corpus/NAME)
FUZZ_TARGETS	:= profile scenario rendezvous maps report cdf journal lldp
fuzz_args_profile	:= -dict=tests/fuzz/profile.dict -max_len=8192
fuzz_seeds_profile	:= profiles tests/profiles
fuzz_args_scenario	:= -dict=tests/fuzz/scenario.dict -max_len=8192
fuzz_seeds_scenario	:= profiles/scenarios
# the rendezvous messages, endpoints and results ranks send each other
fuzz_args_rendezvous	:= -dict=tests/fuzz/rendezvous.dict -max_len=4096
fuzz_seeds_rendezvous	:=
# a directory of counter map files, as --maps reads it
fuzz_args_maps		:= -dict=tests/fuzz/maps.dict -max_len=16384
fuzz_seeds_maps		:= data/counters
# run reports, alone and as a pair, through compare and report (the HTML page)
fuzz_args_report	:= -dict=tests/fuzz/report.dict -max_len=65536 -close_fd_mask=3
fuzz_seeds_report	:= tests/fixtures/compare tests/fuzz/seeds/report
# flow-size CDF files (profiles/scenarios/cdf)
fuzz_args_cdf		:= -dict=tests/fuzz/cdf.dict -max_len=8192
fuzz_seeds_cdf		:= profiles/scenarios/cdf
# the apply journal, parsed only: nothing is written to a port
fuzz_args_journal	:= -dict=tests/fuzz/journal.dict -max_len=16384
fuzz_seeds_journal	:= tests/fuzz/seeds/journal
# LLDP frames as they come off the wire from the switch (nd_lldp_decode)
fuzz_args_lldp		:= -dict=tests/fuzz/lldp.dict -max_len=9216
fuzz_seeds_lldp		:= tests/fuzz/seeds/lldp

.PHONY: deps-fuzz fuzz fuzz-smoke fuzz-targets-smoke $(FUZZ_TARGETS:%=fuzz-%) \
	$(FUZZ_TARGETS:%=fuzz-%-smoke)

deps-fuzz: deps
	$(call apt_install,$(DEPS_FUZZ))

# Coverage for libFuzzer in every object; its main() only at the link.
$(B)/fuzz/%.o: %.c $(PUB_H) $(LIB_H) | $(B)/.deps
	$(call msg,CC-FUZZ,$<)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) $(ND_CFLAGS) -Itools -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) -c -o $@ $<

# the objects stay when a target is linked by the pattern rule (make would delete them)
.SECONDARY: $(FUZZ_LIB_OBJ) $(FUZZ_TOOL_OBJ) $(FUZZ_TARGETS:%=$(B)/fuzz/tests/fuzz/fuzz_%.o)
$(B)/fuzz/fuzz_%: $(B)/fuzz/tests/fuzz/fuzz_%.o $(FUZZ_LIB_OBJ) $(FUZZ_TOOL_OBJ)
	$(call msg,LD,$@)
	$(Q)$(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN) -o $@ $^ $(PKG_LIBS)

$(B)/fuzz/tests/fuzz/fuzz_maps.o $(B)/fuzz/tests/fuzz/fuzz_report.o: tests/fuzz/fuzz_files.h

# $(1): the target, $(2): seconds. A crash or a hang lands in build/fuzz/artifacts/.
define fuzz_run
	$(call msg,FUZZ,'$(1) $(2)s')
	@mkdir -p $(B)/fuzz/corpus/$(1) $(B)/fuzz/artifacts
	$(Q)$(B)/fuzz/fuzz_$(1) -max_total_time=$(2) $(fuzz_args_$(1)) -timeout=10 \
		-print_final_stats=1 -artifact_prefix=$(B)/fuzz/artifacts/$(1)- \
		$(B)/fuzz/corpus/$(1) $(fuzz_seeds_$(1)) >$(B)/fuzz/$(1).log 2>&1 || \
		{ tail -60 $(B)/fuzz/$(1).log; echo "fuzz: $(1) failed; input in" \
			"$(B)/fuzz/artifacts/, log $(B)/fuzz/$(1).log"; exit 1; }
	@grep -a -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added)' \
		$(B)/fuzz/$(1).log | sed 's/^/  /'
endef

define fuzz_target
fuzz-$(1): deps-fuzz $(B)/fuzz/fuzz_$(1)
	$$(call fuzz_run,$(1),$$(FUZZ_TIME))
fuzz-$(1)-smoke: deps-fuzz $(B)/fuzz/fuzz_$(1)
	$$(call fuzz_run,$(1),$$(shell expr $$(FUZZ_SMOKE_TIME) / $(words $(FUZZ_TARGETS))))
fuzz: fuzz-$(1)
fuzz-targets-smoke: fuzz-$(1)-smoke
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_target,$(t))))

# Seeded mutations of the shipped counter maps and of recorded and simulated run reports through
# the sanitizer build of the command (tests/mutate.py): N map directories (`counters --maps`)
# and N report pairs (`report`, `compare`); SEED reruns a case.
MUTATE_N	?= 1000
MUTATE_SEED	?= 3939
.PHONY: mutate
mutate: deps-check $(B)/san/nodrop
	$(call msg,TEST,mutate)
	$(Q)ND_JOBS=$(UNIT_JOBS) tests/mutate.py $(B)/san/nodrop $(or $(N),$(MUTATE_N)) \
		$(or $(SEED),$(MUTATE_SEED)) \
		>$(B)/mutate.log 2>&1 || { grep -v '^ok' $(B)/mutate.log | head -100; exit 1; }
	@grep -E '^(ok|#)' $(B)/mutate.log | sed 's/^/  mutate: /'
# fuzz-smoke: the targets' share of FUZZ_SMOKE_TIME (fuzz-targets-smoke), then mutate
fuzz-smoke: fuzz-targets-smoke mutate
