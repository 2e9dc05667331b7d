#ifndef NN_CFRIBIDI_SHIM_H
#define NN_CFRIBIDI_SHIM_H
#include <fribidi.h>

/* The paragraph directions, whose macros Swift cannot import (they are
 * built from other macros). */
static const FriBidiParType nn_fribidi_par_ltr = FRIBIDI_PAR_LTR;
static const FriBidiParType nn_fribidi_par_rtl = FRIBIDI_PAR_RTL;
static const FriBidiParType nn_fribidi_par_on = FRIBIDI_PAR_ON;
#endif
