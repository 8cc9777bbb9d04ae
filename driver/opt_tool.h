/* opt_tool.h - `nereid opt`, the tool that reads textual IR and runs passes on it, and
 * prints the module, its alignment facts, or the LLVM IR or PTX of its kernels. */
#ifndef NEREID_OPT_TOOL_H
#define NEREID_OPT_TOOL_H

/* `nereid opt ...` (argv[0] is "opt"; the options are opt_tool.c's). Exit status 0, 1 on
 * an error in the input, 2 on a usage error. */
int opt_tool_main(int argc, char **argv);

#endif
