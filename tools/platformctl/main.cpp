#include <cstdio>
int main() { std::puts("platformctl"); return 0; }
