# Nereid - build, demo and tests.
#   make          build build/libnereid.a and build/nereid
#   make demo     install what is missing, build, run every example (GPU if present, else CPU)
#   make test     install what is missing, build, run the whole suite (also under ASan+UBSan)
#   make deps     install the Debian packages the build needs (flex, bison, LLVM 19, lit)
#   make python   the Python package into build/python (PYTHONPATH=build/python)
#   make install  PREFIX=... (default /usr/local): CLI, libraries, header, nereid.pc, man page

LLVM_CONFIG ?= $(shell command -v llvm-config-19 2>/dev/null || echo /usr/lib/llvm-19/bin/llvm-config)
LLVM_BIN    := $(shell $(LLVM_CONFIG) --bindir 2>/dev/null)
LIT         ?= python3 $(shell $(LLVM_CONFIG) --prefix 2>/dev/null)/build/utils/lit/lit.py
FILECHECK   ?= $(LLVM_BIN)/FileCheck

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
CFLAGS_BASE := -std=c11 -Wall -Wextra -Werror -g $(OPT) $(SAN) -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fPIC
LLVM_CFLAGS := $(shell $(LLVM_CONFIG) --cflags 2>/dev/null | tr ' ' '\n' | grep -E '^-(I|D)' | tr '\n' ' ')
CFLAGS  := $(CFLAGS_BASE) $(LLVM_CFLAGS) -I. -Iinclude -I$(BUILD)/gen
LLVM_COMPONENTS := core analysis passes target nvptx bitreader linker
LLVM_LIBS := $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) $(shell $(LLVM_CONFIG) --libs $(LLVM_COMPONENTS) 2>/dev/null)
LDLIBS  := $(LLVM_LIBS) -lm -lpthread -ldl

# The library's folders, bottom layer first: a folder includes headers only from folders
# before it in this list (and include/). tools/check-layers.sh checks it in `make test`;
# docs/architecture.md section 1 describes the layers.
LAYERS   := compiler/support compiler/ir compiler/analysis compiler/passes compiler/target compiler/gpu \
            compiler/codegen lang driver runtime
LIB_SRCS := $(filter-out driver/cli.c,$(foreach d,$(LAYERS),$(wildcard $(d)/*.c)))
GEN_SRCS := $(BUILD)/gen/parser.c $(BUILD)/gen/lexer.c $(BUILD)/gen/stdlib_src.c $(BUILD)/gen/build_id.c
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o) $(GEN_SRCS:$(BUILD)/gen/%.c=$(BUILD)/obj/gen/%.o)
HEADERS  := $(wildcard include/*.h) $(foreach d,$(LAYERS),$(wildcard $(d)/*.h $(d)/*.def))

UNIT_SRCS := $(wildcard tests/unit/*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
EXAMPLE_SRCS := $(wildcard examples/*.c)
EXAMPLE_BINS := $(EXAMPLE_SRCS:examples/%.c=$(BUILD)/examples/%)
GPU_TEST_SRCS := $(wildcard tests/gpu/*.c)
GPU_TEST_BINS := $(GPU_TEST_SRCS:tests/gpu/%.c=$(BUILD)/gpu-tests/%)
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(BENCH_SRCS:bench/%.c=$(BUILD)/bench/%)

.PHONY: all deps demo test test-quick lit unit clean asan gpu-build tsan fuzz-ci print-lib-srcs print-layers format
all: $(BUILD)/nereid $(BUILD)/libnereid.a $(UNIT_BINS) $(EXAMPLE_BINS) $(GPU_TEST_BINS) $(BENCH_BINS) \
     $(BUILD)/mock/libcuda.so.1 $(BUILD)/fuzz/replay_compile $(BUILD)/fuzz/replay_ir

deps:
	@bash tools/install-deps.sh

# the C sources formatted by .clang-format (clang-format 14; tools/check-format.sh checks it)
format:
	@bash tools/check-format.sh --fix

# for tests/fuzz/build.sh and tools/check-layers.py: the one list of sources and layers
print-lib-srcs:
	@echo $(LIB_SRCS)
print-layers:
	@echo $(LAYERS)

$(BUILD)/gen/parser.c: lang/parser.y
	@mkdir -p $(dir $@)
	bison -Wall -Werror --defines=$(BUILD)/gen/parser.h -o $@ $<
$(BUILD)/gen/parser.h: $(BUILD)/gen/parser.c
$(BUILD)/gen/lexer.c: lang/lexer.l $(BUILD)/gen/parser.h
	@mkdir -p $(dir $@)
	flex --header-file=$(BUILD)/gen/lexer.h -o $@ $<
$(BUILD)/gen/lexer.h: $(BUILD)/gen/lexer.c
$(BUILD)/gen/stdlib_src.c: $(wildcard lang/stdlib/*.nr) tools/embed.sh
	@mkdir -p $(dir $@)
	bash tools/embed.sh $@ $(sort $(wildcard lang/stdlib/*.nr))

# what the generated code depends on: the disk cache's key (tools/build-id.sh)
BUILD_ID_INPUTS := $(sort $(LIB_SRCS) $(HEADERS) lang/parser.y lang/lexer.l $(wildcard lang/stdlib/*.nr))
$(BUILD)/gen/build_id.c: $(BUILD_ID_INPUTS) tools/build-id.sh
	@mkdir -p $(dir $@)
	bash tools/build-id.sh $@ $(BUILD_ID_INPUTS)

# generated code: its own warnings are flex's and bison's, not ours
# The library's objects have hidden visibility: only what include/nereid.h marks NR_API
# is exported from libnereid.so (tests/scripts/test_symbols.sh checks it).
$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c $(HEADERS) $(BUILD)/gen/parser.h $(BUILD)/gen/lexer.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=hidden -Wno-unused-function -Wno-sign-compare -Wno-unused-parameter -c $< -o $@
$(BUILD)/obj/%.o: %.c $(HEADERS) $(BUILD)/gen/parser.h $(BUILD)/gen/lexer.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=hidden -c $< -o $@

# For the GPU machine, which has no LLVM: one shared library with LLVM (and libstdc++)
# linked in statically, and small programs that find it next to them (docs/gpu.md). The
# two tools that run the GPU back end themselves (the CLI, bench/compile_time) need a copy
# of LLVM of their own, about 32 MB each: only GPU_TOOLS=1 builds them, so that the folder
# stays small enough to carry (about 45 MB without them).
LLVM_STATIC := $(shell $(LLVM_CONFIG) --ldflags 2>/dev/null) $(shell $(LLVM_CONFIG) --link-static --libs $(LLVM_COMPONENTS) 2>/dev/null)
# only the system libraries LLVM's code really pulls in stay as dependencies (no z3, xml2)
LLVM_STATIC_SYS := -Wl,--as-needed $(patsubst -lzstd,-l:libzstd.so.1,$(filter-out %libz3.so -lxml2,$(shell $(LLVM_CONFIG) --link-static --system-libs 2>/dev/null))) -Wl,--no-as-needed
GPU_BUILD ?= build-gpu
GPU_TOOLS ?= 0
GPU_TOOL_BINS := $(GPU_BUILD)/nereid $(GPU_BUILD)/bench/compile_time
# unit tests that call the GPU back end (LLVM) from outside the library: they run here
GPU_SKIP_UNITS := $(GPU_BUILD)/tests/test_pcompile
gpu-build:
	@$(MAKE) --no-print-directory BUILD=$(GPU_BUILD) SHARED=1 $(GPU_BUILD)/libnereid.so \
	  $(filter-out $(GPU_SKIP_UNITS),$(UNIT_SRCS:tests/unit/%.c=$(GPU_BUILD)/tests/%)) \
	  $(EXAMPLE_SRCS:examples/%.c=$(GPU_BUILD)/examples/%) \
	  $(filter-out $(GPU_TOOL_BINS),$(GPU_TEST_SRCS:tests/gpu/%.c=$(GPU_BUILD)/gpu-tests/%) \
	    $(BENCH_SRCS:bench/%.c=$(GPU_BUILD)/bench/%)) $(if $(filter 1,$(GPU_TOOLS)),$(GPU_TOOL_BINS))
	@$(MAKE) --no-print-directory BUILD=$(GPU_BUILD) SHARED=1 python
	@# stripped last: the python step may link the library again (a regenerated lexer)
	strip --strip-unneeded $(GPU_BUILD)/libnereid.so
	@# the PTX bench/launch_overhead launches bare, made here (the GPU machine has no CLI)
	@$(MAKE) --no-print-directory $(BUILD)/nereid
	for a in sm_80 sm_90 sm_90a; do $(BUILD)/nereid compile examples/vector_add.nr -k add_kernel -D BLOCK_SIZE=128 \
	  --num-warps=4 --arch=$$a --divisible=n_elements --emit=ptx -o $(GPU_BUILD)/bench/add_kernel.$$a.ptx || exit 1; done
$(BUILD)/libnereid.so: $(LIB_OBJS)
	$(CXX) -shared -o $@ $^ -Wl,--start-group $(LLVM_STATIC) -Wl,--end-group $(LLVM_STATIC_SYS) -static-libstdc++ \
	  -static-libgcc -lm -ldl -lpthread -Wl,--exclude-libs,ALL

# the libFuzzer harnesses with a plain main that replays a corpus (tests/fuzz/replay.c):
# `make test` replays tests/fuzz/corpus with them, under ASan and UBSan in build-san
$(BUILD)/fuzz/replay_%: tests/fuzz/replay.c tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(BUILD)/libnereid.a $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ tests/fuzz/replay.c tests/fuzz/fuzz_$*.c $(BUILD)/libnereid.a $(LDLIBS) -lstdc++

# a stand-in CUDA driver for testing the runtime's fault handling without a GPU
# (tools/run-tests.sh puts it on LD_LIBRARY_PATH for tests/gpu/test_gpu_faults only)
$(BUILD)/mock/libcuda.so.1: tests/mock/cuda_mock.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fvisibility=hidden -shared -Wl,-soname,libcuda.so.1 -o $@ $< -lpthread

$(BUILD)/libnereid.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^
ifeq ($(SHARED),1)
NEREID_LIB = $(BUILD)/libnereid.so
LINK_NEREID = -L$(BUILD) -lnereid -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/..' -lm -lpthread -ldl
# Programs that call Nereid's internals (the tests that include compiler/, runtime/ or
# lang/ headers) cannot get them from libnereid.so, which exports only the API: they link
# libnereid.so first, then the static library for the internals they use (the linker
# takes from it only what the .so does not export; none of those tests needs LLVM, which
# only the .so holds, so they stay small). The CLI and bench/compile_time call the GPU
# back end themselves: they link everything statically, LLVM included, unused sections
# dropped and stripped.
INTERNAL_SRCS := $(shell grep -lE '^\#include "(compiler|runtime|lang|driver)/' $(UNIT_SRCS) $(GPU_TEST_SRCS) $(BENCH_SRCS))
STATIC_BINS := $(BUILD)/nereid $(BUILD)/bench/compile_time
INTERNAL_BINS := $(filter-out $(STATIC_BINS),$(patsubst tests/unit/%.c,$(BUILD)/tests/%,\
                   $(patsubst tests/gpu/%.c,$(BUILD)/gpu-tests/%,$(patsubst bench/%.c,$(BUILD)/bench/%,$(INTERNAL_SRCS)))))
$(INTERNAL_BINS) $(STATIC_BINS): $(BUILD)/libnereid.a
$(INTERNAL_BINS): LINK_NEREID = -L$(BUILD) -lnereid $(BUILD)/libnereid.a -Wl,-rpath,'$$ORIGIN' -Wl,-rpath,'$$ORIGIN/..' \
                   -lm -lpthread -ldl
$(STATIC_BINS): LINK_NEREID = -Wl,--gc-sections -s -Wl,--start-group $(BUILD)/libnereid.a $(LLVM_STATIC) -Wl,--end-group \
                   $(LLVM_STATIC_SYS) $(shell $(CXX) -print-file-name=libstdc++.a) -lm -lpthread -ldl
else
NEREID_LIB = $(BUILD)/libnereid.a
LINK_NEREID = $(BUILD)/libnereid.a $(LDLIBS) -lstdc++
endif
$(BUILD)/nereid: $(BUILD)/obj/driver/cli.o $(NEREID_LIB)
	$(CC) $(CFLAGS) -o $@ $< $(LINK_NEREID)
$(BUILD)/tests/%: tests/unit/%.c $(NEREID_LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LINK_NEREID)
$(BUILD)/gpu-tests/%: tests/gpu/%.c $(NEREID_LIB) $(HEADERS) $(wildcard tests/gpu/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LINK_NEREID)
# The ahead-of-time C output, generated by the CLI and compiled as a user would compile it
# (strict C11, no CUDA headers), linked into test_aot with the JIT to compare against.
AOT_ARCHS ?= sm_80,sm_90a
AOT_GEN := $(BUILD)/aot/aot_add $(BUILD)/aot/aot_mm $(BUILD)/aot/aot_misc
$(BUILD)/aot/aot_add.c: examples/vector_add.nr $(BUILD)/nereid
	@mkdir -p $(dir $@)
	$(BUILD)/nereid compile $< -D BLOCK_SIZE=256 --emit=c --arch=$(AOT_ARCHS) -o $(basename $@)
$(BUILD)/aot/aot_mm.c: examples/matmul.nr $(BUILD)/nereid
	@mkdir -p $(dir $@)
	$(BUILD)/nereid compile $< -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8 \
	  -D ACTIVATION=leaky_relu --one=stride_ak,stride_bn,stride_cn --emit=c --arch=$(AOT_ARCHS) -o $(basename $@)
$(BUILD)/aot/aot_misc.c: tests/gpu/aot_kernels.nr $(BUILD)/nereid
	@mkdir -p $(dir $@)
	$(BUILD)/nereid compile $< -D BLOCK=128 --emit=c --no-ptxas --arch=$(AOT_ARCHS) -o $(basename $@)
$(AOT_GEN:%=%.o): %.o: %.c
	$(CC) -std=c11 -Wall -Wextra -Werror -O2 -c $< -o $@
$(BUILD)/gpu-tests/test_aot: tests/gpu/test_aot.c $(AOT_GEN:%=%.o) $(NEREID_LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -I$(BUILD)/aot -Itests/unit -o $@ $< $(AOT_GEN:%=%.o) $(LINK_NEREID) -lpthread
$(BUILD)/bench/%: bench/%.c $(NEREID_LIB) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LINK_NEREID)
$(BUILD)/examples/%: examples/%.c examples/common.h $(NEREID_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< $(LINK_NEREID)

demo: deps
	@$(MAKE) --no-print-directory all
	@bash tools/demo.sh $(BUILD)

# The threaded tests, also built with ThreadSanitizer (build-tsan/: the library and these
# programs only, not the whole suite).
TSAN_TESTS := test_threads test_api test_pcompile test_ptxas
tsan:
	@$(MAKE) --no-print-directory BUILD=build-tsan OPT=-O1 SAN="-fsanitize=thread" $(TSAN_TESTS:%=build-tsan/tests/%) \
	  build-tsan/mock/libcuda.so.1

# the whole suite: normal build (with libnereid.so, for the check of its exports), then
# again under ASan+UBSan, and the threaded tests under TSan; ends with "N passed, N
# failed, N skipped"
test: deps
	@$(MAKE) --no-print-directory all python build/libnereid.so
	@$(MAKE) --no-print-directory BUILD=build-san OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" all
	@$(MAKE) --no-print-directory tsan
	@bash tools/run-tests.sh build build-san build-tsan:unit

# CI's fuzzing, after `make test` (.ci/run): each libFuzzer harness for 60 seconds from the
# regression corpus (tools/fuzz-ci.sh; FUZZ_SECONDS=N for another time)
fuzz-ci:
	@bash tools/install-deps.sh --fuzz
	@bash tools/fuzz-ci.sh

# one build, no sanitizers: the quick loop while developing
test-quick: all python $(BUILD)/libnereid.so
	@bash tools/run-tests.sh $(BUILD)

clean:
	rm -rf build build-san build-tsan build-fuzz

# ---- the Python package (python/nereid): a C extension over the C API, built against
# Python's limited API (one abi3 .so for CPython 3.11 and later), into $(BUILD)/python
# (use it with PYTHONPATH=$(BUILD)/python). `make gpu-build` builds it too, linked
# against $(GPU_BUILD)/libnereid.so.
PYTHON    ?= $(shell command -v /usr/bin/python3 2>/dev/null || command -v python3)
PY_INCLUDE := $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null)
PY_CSRCS  := $(wildcard python/nereid/*.c)
PY_FILES  := $(wildcard python/nereid/*.py python/nereid/_site/*.py)
PY_EXT    := $(BUILD)/python/nereid/_nereid.abi3.so
PY_CFLAGS := -std=c11 -Wall -Wextra -Werror -g $(OPT) -fPIC -fvisibility=hidden -Iinclude -I$(PY_INCLUDE)
ifeq ($(SHARED),1)
PY_LINK = -L$(BUILD) -lnereid -Wl,-rpath,'$$ORIGIN/../..' -lm -lpthread -ldl
else
PY_LINK = $(BUILD)/libnereid.a $(LDLIBS) -lstdc++ -Wl,--exclude-libs,ALL
endif
.PHONY: python
python: $(PY_EXT) $(PY_FILES:python/%=$(BUILD)/python/%)
$(PY_EXT): $(PY_CSRCS) python/nereid/_nereid.h include/nereid.h $(NEREID_LIB)
	@mkdir -p $(dir $@)
	@test -f "$(PY_INCLUDE)/Python.h" || { echo "make python: no Python.h for $(PYTHON) (apt-get install python3-dev)"; exit 1; }
	$(CC) $(PY_CFLAGS) -shared -o $@ $(PY_CSRCS) $(PY_LINK)
$(BUILD)/python/nereid/%.py: python/nereid/%.py
	@mkdir -p $(dir $@)
	cp $< $@

# ---- install: the CLI, the libraries (libnereid.so carries LLVM inside it, as the CLI does, so the
# installed CLI and programs linked with `pkg-config --libs nereid` need no LLVM; the .a
# needs LLVM 19's libraries, as `pkg-config --static --libs nereid` says), the header,
# the pkg-config file and the manual page. DESTDIR is honoured, for packagers.
PREFIX  ?= /usr/local
NEREID_VERSION_TEXT = $(shell sed -n 's/^\#define NEREID_VERSION "\(.*\)"/\1/p' include/nereid.h)
INSTALL_FILES = bin/nereid lib/libnereid.so lib/libnereid.a include/nereid.h lib/pkgconfig/nereid.pc \
                share/man/man1/nereid.1
.PHONY: install uninstall
# the CLI calls the compiler's internals, which libnereid.so hides: it links them, LLVM
# included, statically (as `make gpu-build GPU_TOOLS=1` does), so it needs no LLVM either
$(BUILD)/install/nereid: $(BUILD)/obj/driver/cli.o $(BUILD)/libnereid.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -Wl,--gc-sections -s -Wl,--start-group $(BUILD)/libnereid.a $(LLVM_STATIC) -Wl,--end-group \
	  $(LLVM_STATIC_SYS) $(shell $(CXX) -print-file-name=libstdc++.a) -lm -lpthread -ldl
$(BUILD)/install/libnereid.so: $(BUILD)/libnereid.so
	@mkdir -p $(dir $@)
	strip --strip-unneeded -o $@ $<
$(BUILD)/install/nereid.pc: tools/nereid.pc.in include/nereid.h
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(NEREID_VERSION_TEXT)|' \
	    -e 's|@LIBS_PRIVATE@|$(LLVM_LIBS) -lstdc++ -lm -lpthread -ldl|' $< > $@
install: $(BUILD)/install/nereid $(BUILD)/install/libnereid.so $(BUILD)/libnereid.a
	@rm -f $(BUILD)/install/nereid.pc
	@$(MAKE) --no-print-directory $(BUILD)/install/nereid.pc
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BUILD)/install/nereid $(DESTDIR)$(PREFIX)/bin/nereid
	install -m 755 $(BUILD)/install/libnereid.so $(DESTDIR)$(PREFIX)/lib/libnereid.so
	install -m 644 $(BUILD)/libnereid.a $(DESTDIR)$(PREFIX)/lib/libnereid.a
	install -m 644 include/nereid.h $(DESTDIR)$(PREFIX)/include/nereid.h
	install -m 644 $(BUILD)/install/nereid.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/nereid.pc
	install -m 644 docs/nereid.1 $(DESTDIR)$(PREFIX)/share/man/man1/nereid.1
uninstall:
	rm -f $(INSTALL_FILES:%=$(DESTDIR)$(PREFIX)/%)
