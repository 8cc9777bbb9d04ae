# lit configuration for Nereid's compiler tests: front end (.nr) and IR (.nrir).
import os
import lit.formats

config.name = "nereid"
config.test_format = lit.formats.ShTest(execute_external=True)
config.suffixes = [".nr", ".nrir"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(__file__)
root = os.path.abspath(os.path.join(config.test_source_root, "..", ".."))
build = os.environ.get("NEREID_BUILD", os.path.join(root, "build"))
config.test_exec_root = os.path.join(build, "lit")
llvm_bin = os.environ.get("LLVM_BIN", "/usr/lib/llvm-19/bin")
config.environment["PATH"] = os.pathsep.join([llvm_bin, config.environment.get("PATH", os.environ.get("PATH", ""))])
for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "HOME", "NEREID_CACHE_DIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]
config.substitutions.append(("%nereid", os.path.join(build, "nereid")))
config.substitutions.append(("%examples", os.path.join(root, "examples")))
config.substitutions.append(("%stdlib", os.path.join(root, "lang", "stdlib")))
# the fp8 codec's table for the GPU back end's conversions run on the host (gpu/fp8-soft-lli.nr)
config.substitutions.append(("%fp8ref", os.path.join(build, "tests", "test_fp8") + " --soft-reference"))
# the checker of the GPU's libdevice-free math routines run on the host (gpu/math-soft-host.nr)
config.substitutions.append(("%mathcheck", os.path.join(build, "tests", "test_lang_math")))

# ptxas from the CUDA toolkit, when installed, assembles the PTX the GPU back end emits
for ptxas in ("/usr/local/cuda/bin/ptxas",):
    if os.path.exists(ptxas):
        config.available_features.add("ptxas")
        config.substitutions.append(("%ptxas", ptxas))

# CUDA's libdevice, when installed, is what the math functions (tl.erf, libdevice.pow, ...) link
for libdevice in ("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",):
    if os.path.exists(libdevice):
        config.available_features.add("libdevice")
        config.substitutions.append(("%libdevice", libdevice))
