# TAP for the shell tests, sourced: tap ok|not-ok DESCRIPTION prints the next
# numbered line; diag prints its input as TAP comments.
n=0
tap() {
    n=$((n + 1))
    if [ "$1" = ok ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}
diag() { sed 's/^/# /'; }
