module mcpwire.example/go-host

go 1.19
