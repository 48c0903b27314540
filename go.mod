module github.com/precog-dev/precog

go 1.26
