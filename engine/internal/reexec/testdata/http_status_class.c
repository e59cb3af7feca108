const char *http_status_class(int code) {
	switch (code) {
	case 200: return "OK";
	case 201: return "Created";
	case 202: return "Accepted";
	case 204: return "No Content";
	case 206: return "Partial Content";
	case 207: return "Multi-Status";
	case 208: return "Already Reported";
	case 209: return "unused";
	case 210: return "unused";
	case 211: return "unused";
	case 212: return "unused";
	case 226: return "IM Used";
	}
	if (code >= 100 && code < 200)
		return "Informational";
	if (code >= 300 && code < 400)
		return "Redirection";
	if (code >= 400 && code < 500)
		return "Client Error";
	if (code >= 500 && code < 600)
		return "Server Error";
	return "Unknown";
}
