// main.cpp: the convcompare command; everything lives in the driver so tests can link it.
#include "tools/convcompare/driver.h"

int main(int argc, char** argv) { return cc::convcompare_main(argc, argv); }
