#ifndef NN_CTHAI_SHIM_H
#define NN_CTHAI_SHIM_H
/* libthai's word breaking, on TIS-620 text (the Thai block of Unicode
 * shifted into one byte), with the dictionary of libthai-data. */
#include <thai/thbrk.h>
#endif
