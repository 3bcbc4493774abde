// doctest_main.cpp: the one doctest main every test executable links.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
