package onceexport

// ExportConfigure lets the package's external tests configure a transport.
func ExportConfigure(t *Transport) { configure(t) }
