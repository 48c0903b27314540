module httpserve

go 1.24
