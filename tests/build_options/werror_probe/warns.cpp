// -Wunused-variable, on purpose.
int main() {
    int unused = 0;
    return 0;
}
