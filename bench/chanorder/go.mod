module selrace

go 1.24
