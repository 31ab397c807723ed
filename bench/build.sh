# build.sh, sourced by the scripts that time one revision against another:
# build_pair REV DIR builds m2m-batch at git revision REV as DIR/old and
# from the working tree as DIR/new.
build_pair() {
	mkdir "$2/src"
	git archive "$1" | tar -x -C "$2/src"
	(cd "$2/src" && go build -o "$2/old" ./cmd/m2m-batch)
	go build -o "$2/new" ./cmd/m2m-batch
}
