#include "app.hpp"

int main(int argc, char** argv) { return cudabridge::cli::run_cli(argc, argv); }
