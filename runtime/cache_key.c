/* cache_key.c - the disk cache's key of a compiled GPU kernel variant (see cache_key.h).
 *
 * The text is, with every string written as LENGTH:BYTES,
 *   BUILD|arch=A|cc=N|driver=N|libdevice=S|kernel=S|variant=S|warps=N|only=S|defines=N|
 *   -DS=S;...|file=S|source=S  (one line)
 * where BUILD is "nereid VERSION build ID LLVM X.Y.Z" and `only` is a bare "*" for every
 * kernel. */
#include "cache_key.h"

#include <string.h>

#include "driver/driver.h"
#include "nereid.h"

static void put_str(StrBuf *sb, const char *s) {
    s = s ? s : "";
    sb_printf(sb, "%zu:", strlen(s));
    sb_puts(sb, s);
}

void cache_key_build(StrBuf *build, const unsigned llvm_version[3]) {
    sb_printf(build, "nereid %s build %s LLVM %u.%u.%u", NEREID_VERSION, driver_build_id,
              llvm_version[0], llvm_version[1], llvm_version[2]);
}

void cache_key_make(const CacheKeyInput *in, StrBuf *build, StrBuf *text) {
    cache_key_build(build, in->llvm_version);
    sb_putn(text, build->data, build->len);
    sb_puts(text, "|arch=");
    put_str(text, in->arch);
    sb_printf(text, "|cc=%d|driver=%d|libdevice=", in->compute_capability, in->driver_version);
    put_str(text, in->libdevice ? in->libdevice : "none");
    sb_puts(text, "|kernel=");
    put_str(text, in->kernel);
    sb_puts(text, "|variant=");
    put_str(text, in->variant);
    sb_printf(text, "|maxnreg=%d|fp_fusion=%d|reflect_ftz=%d", in->code.maxnreg,
              (int)in->code.fp_fusion, (int)in->code.reflect_ftz);
    sb_printf(text, "|warps=%d|stages=%d|debug=%d|only=", in->num_warps, in->num_stages, in->debug);
    if (in->only_kernel) put_str(text, in->only_kernel);
    else sb_putc(text, '*'); /* not LENGTH:..., so no kernel name gives it */
    sb_printf(text, "|defines=%d|", in->ndefines);
    for (int i = 0; i < in->ndefines; i++) {
        sb_puts(text, "-D");
        put_str(text, in->defines[i].name);
        sb_putc(text, '=');
        put_str(text, in->defines[i].value);
        sb_putc(text, ';');
    }
    sb_puts(text, "|file=");
    put_str(text, in->file);
    sb_printf(text, "|source=%zu:", in->source_len);
    sb_putn(text, in->source ? in->source : "", in->source ? in->source_len : 0);
}
