// test_pch.cpp: the one source of lds_test_pch, whose precompiled header every suite reuses.
#include "test_pch.h"
