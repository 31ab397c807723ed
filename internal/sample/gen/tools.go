package gen

import (
	"strconv"
	"strings"
)

// Function tools: their JSON schemas, and made-up arguments and results.

// toolDef is a function a client offers the model.
type toolDef struct {
	name, desc string
	params     []param
	// result lists the fields of the function's result as "name:kind"
	// (kinds as in value).
	result []string
}

// param is one argument of a tool. kind says how to make up a value (see
// value); an "enum:a|b" kind also gives the schema's enum.
type param struct {
	name, typ, desc, kind string
	required              bool
}

// schema returns the tool as it appears in a request's "tools" array.
func (d *toolDef) schema() object {
	props := make(object, len(d.params))
	var required []string
	for i, p := range d.params {
		prop := object{{"type", p.typ}}
		if p.typ == "array" {
			prop = append(prop, member{"items", object{{"type", "string"}}})
		}
		prop = append(prop, member{"description", p.desc})
		if vals, ok := strings.CutPrefix(p.kind, "enum:"); ok {
			prop = append(prop, member{"enum", strings.Split(vals, "|")})
		}
		props[i] = member{p.name, prop}
		if p.required {
			required = append(required, p.name)
		}
	}
	params := object{{"type", "object"}, {"properties", props}}
	if required != nil {
		params = append(params, member{"required", required})
	}
	return object{{"type", "function"}, {"function", object{{"name", d.name}, {"description", d.desc}, {"parameters", params}}}}
}

// toolNamed returns the tool of defs called name.
func toolNamed(defs []*toolDef, name string) *toolDef {
	for _, d := range defs {
		if d.name == name {
			return d
		}
	}
	panic("sample: no tool " + name)
}

// toolsJSON returns the "tools" member value for defs and its cost in
// prompt tokens.
func toolsJSON(defs []*toolDef) ([]object, int) {
	o := make([]object, len(defs))
	for i, d := range defs {
		o[i] = d.schema()
	}
	return o, textTokens(compact.encode(o))
}

// call makes up a call of d: every required argument and some optional
// ones, with the values in fixed replacing made-up ones.
func (g *gen) call(d *toolDef, zh bool, fixed object) object {
	args := object{}
	for _, p := range d.params {
		if !p.required && !g.r.percent(40) {
			continue
		}
		v := g.value(p.kind, zh)
		for _, f := range fixed {
			if f.key == p.name {
				v = f.val
			}
		}
		args = append(args, member{p.name, v})
	}
	return args
}

// result makes up d's result for a call with args: an object with the
// arguments echoed back, then the result fields.
func (g *gen) result(d *toolDef, args object, zh bool) object {
	res := object{}
	if g.r.percent(50) {
		res = append(res, member{"status", "success"})
	}
	if len(args) > 0 && g.r.percent(50) {
		res = append(res, args[0])
	}
	for _, f := range d.result {
		name, kind, _ := strings.Cut(f, ":")
		res = append(res, member{name, g.value(kind, zh)})
	}
	return res
}

// describe turns a result into the sentence an assistant would answer
// with: "The total amount is 42.5, and the status is shipped."
func describe(res object) string {
	var parts []string
	for _, m := range res {
		if m.key == "status" {
			continue
		}
		name := strings.ReplaceAll(m.key, "_", " ")
		switch v := m.val.(type) {
		case string:
			parts = append(parts, "the "+name+" is "+v)
		case number:
			parts = append(parts, "the "+name+" is "+string(v))
		case int:
			parts = append(parts, "the "+name+" is "+strconv.Itoa(v))
		case []any:
			parts = append(parts, "I found "+strconv.Itoa(len(v))+" "+name)
		}
	}
	if len(parts) == 0 {
		return "Done! The request went through."
	}
	s := strings.Join(parts, ", and ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

var (
	zhCities  = []string{"北京", "上海", "广州", "深圳", "杭州", "成都", "东京", "首尔"}
	countries = []string{"US", "GB", "DE", "FR", "JP", "BR", "IN", "CA", "ES", "KR"}
	languages = []string{"French", "Spanish", "German", "Japanese", "Portuguese", "Italian"}
	tickers   = []string{"AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "TSLA", "META", "NFLX"}
	carriers  = []string{"UPS", "FedEx", "DHL", "USPS"}
	genres    = []string{"drama", "comedy", "thriller", "science fiction", "documentary", "romance"}
)

// value makes up a value of the given kind: a tool argument or a result
// field. zh selects Chinese text where text is made up.
func (g *gen) value(kind string, zh bool) any {
	r := g.r
	kind, arg, _ := strings.Cut(kind, ":")
	switch kind {
	case "city":
		if zh {
			return pick(r, zhCities)
		}
		return pick(r, cities)
	case "country":
		return pick(r, countries)
	case "date":
		return g.date()
	case "datetime":
		return g.date() + "T" + pad2(r.between(8, 19)) + ":" + pick(r, []string{"00", "15", "30", "45"}) + ":00"
	case "time":
		return pad2(r.between(11, 21)) + ":" + pick(r, []string{"00", "30"})
	case "int", "num":
		lo, hi, _ := strings.Cut(arg, "-")
		a, _ := strconv.Atoi(lo)
		b, _ := strconv.Atoi(hi)
		if kind == "int" {
			return r.between(a, b)
		}
		return decimal(r.between(a*100, b*100))
	case "enum":
		return pick(r, strings.Split(arg, "|"))
	case "bool":
		return r.percent(50)
	case "id":
		return arg + "-" + strconv.Itoa(r.between(10000, 99999))
	case "person":
		return g.personName()
	case "email":
		return g.email()
	case "title", "text", "query":
		t := &topics[r.intn(len(topics))]
		switch {
		case zh && kind == "text":
			return g.chineseSentence()
		case zh:
			return pick(r, zhObjects)
		case kind == "title":
			return titleCase(g.expand("the {a} {tn}", t))
		case kind == "text":
			return g.sentence(t)
		}
		return g.expand("{a} {tn}", t)
	case "url":
		return g.url(&topics[r.intn(len(topics))])
	case "password":
		return r.chars(base62Digits+"!#$%&*?@", r.between(12, 20))
	case "symbol":
		return pick(r, tickers)
	case "currency":
		return pick(r, currencies)
	case "lang":
		return pick(r, languages)
	case "carrier":
		return pick(r, carriers)
	case "genre":
		return pick(r, genres)
	case "list":
		vals := make([]any, r.between(2, 4))
		for i := range vals {
			vals[i] = g.value(arg, zh)
		}
		return vals
	case "items":
		// items:field=kind+field=kind: a list of small objects.
		items := make([]any, r.between(2, 4))
		for i := range items {
			var o object
			for f := range strings.SplitSeq(arg, "+") {
				name, k, _ := strings.Cut(f, "=")
				o = append(o, member{name, g.value(k, zh)})
			}
			items[i] = o
		}
		return items
	}
	panic("sample: unknown value kind " + kind)
}

// decimal returns hundredths as a number literal the way Python prints a
// float: 85050 is 850.5, 1200 is 12.0.
func decimal(hundredths int) number {
	s := strconv.Itoa(hundredths/100) + "." + pad2(hundredths%100)
	if strings.HasSuffix(s, "0") && !strings.HasSuffix(s, ".00") {
		s = s[:len(s)-1]
	}
	return number(strings.TrimSuffix(s, "0"))
}

// The support desk's tools: one set, sent with every request of the
// support app.
var supportTools = []*toolDef{
	{name: "lookup_order", desc: "Look up an order by its ID and return its status, items and shipping details.",
		params: []param{{"order_id", "string", "The order ID, for example ORD-12345.", "id:ORD", true}},
		result: []string{"order_status:enum:processing|shipped|delivered|delayed", "carrier:carrier", "tracking_number:id:TRK", "estimated_delivery:date", "items:items:name=title+quantity=int:1-3+price=num:5-200"}},
	{name: "get_shipping_status", desc: "Get the latest tracking events for a shipment.",
		params: []param{{"tracking_number", "string", "The carrier tracking number.", "id:TRK", true}, {"carrier", "string", "The shipping carrier.", "enum:UPS|FedEx|DHL|USPS", false}},
		result: []string{"events:items:time=datetime+location=city+description=enum:Departed facility|Arrived at facility|Out for delivery|Delivered"}},
	{name: "create_refund", desc: "Create a refund for an order or for some of its items.",
		params: []param{{"order_id", "string", "The order ID.", "id:ORD", true}, {"reason", "string", "Why the customer wants a refund.", "enum:damaged|wrong_item|late_delivery|not_as_described|other", true}, {"amount", "number", "Amount to refund in USD. Omit to refund the whole order.", "num:5-300", false}},
		result: []string{"refund_id:id:RF", "refund_amount:num:5-300", "expected_in_days:int:3-10"}},
	{name: "search_products", desc: "Search the product catalog.",
		params: []param{{"query", "string", "Search terms.", "query", true}, {"category", "string", "Restrict results to one category.", "enum:apparel|footwear|outdoor|electronics|home", false}, {"max_results", "integer", "Maximum number of products to return (default 5).", "int:3-10", false}},
		result: []string{"products:items:sku=id:SKU+name=title+price=num:10-400+in_stock=bool"}},
	{name: "escalate_to_human", desc: "Hand the conversation to a human agent. Use only when the customer asks for it or the issue cannot be solved with the other tools.",
		params: []param{{"summary", "string", "A short summary of the issue for the agent.", "text", true}, {"priority", "string", "How urgent the issue is.", "enum:low|normal|high", false}},
		result: []string{"ticket_id:id:TCK", "expected_wait_minutes:int:2-45"}},
}

// Functions of the function-calling app; each of its sessions offers one
// or two, so most of its tool lists are unique.
var fcTools = []*toolDef{
	{name: "calculate_bmi", desc: "Calculate the Body Mass Index (BMI) of a person",
		params: []param{{"weight", "number", "Body weight in kilograms", "num:45-120", true}, {"height", "number", "Height in meters", "num:1-2", true}},
		result: []string{"bmi:num:17-35", "category:enum:underweight|normal|overweight"}},
	{name: "convert_currency", desc: "Convert money between two currencies at today's rate",
		params: []param{{"amount", "number", "Amount of money in the source currency", "int:10-5000", true}, {"from_currency", "string", "ISO code of the source currency", "currency", true}, {"to_currency", "string", "ISO code of the target currency", "currency", true}},
		result: []string{"converted_amount:num:10-6000", "exchange_rate:num:0-2"}},
	{name: "get_movie_details", desc: "Get details about a movie",
		params: []param{{"title", "string", "Movie title", "title", true}, {"year", "integer", "The release year of the movie", "int:1970-2024", false}},
		result: []string{"director:person", "genre:genre", "rating:num:5-9", "runtime_minutes:int:85-180"}},
	{name: "search_recipes", desc: "Find recipes that use the given ingredients",
		params: []param{{"ingredients", "array", "Ingredients the recipe must contain", "list:query", true}, {"cuisine", "string", "Preferred cuisine", "enum:Italian|Mexican|Japanese|Indian|Thai", false}},
		result: []string{"recipes:items:name=title+url=url"}},
	{name: "calculate_loan_payment", desc: "Calculate the monthly payment for a loan",
		params: []param{{"principal", "number", "The loan amount", "int:1000-500000", true}, {"interest_rate", "number", "The annual interest rate in percent", "num:2-9", true}, {"term_months", "integer", "The loan term in months", "int:12-360", true}},
		result: []string{"monthly_payment:num:50-4000", "total_interest:num:100-90000"}},
	{name: "generate_password", desc: "Make a random password of the requested length",
		params: []param{{"length", "integer", "Number of characters", "int:8-32", true}, {"include_symbols", "boolean", "Whether to include symbols", "bool", false}},
		result: []string{"password:password"}},
	{name: "get_stock_price", desc: "Get the current price of a stock",
		params: []param{{"symbol", "string", "The stock ticker symbol, e.g. AAPL", "symbol", true}},
		result: []string{"price:num:20-900", "change_percent:num:0-5", "currency:enum:USD"}},
	{name: "translate_text", desc: "Translate text to a target language",
		params: []param{{"text", "string", "The text to translate", "text", true}, {"target_language", "string", "The language to translate into", "lang", true}},
		result: []string{"translated_text:text"}},
	{name: "calculate_tip", desc: "Work out the tip for a restaurant bill",
		params: []param{{"bill_amount", "number", "Bill total before tip", "num:10-400", true}, {"tip_percentage", "number", "The tip percentage", "int:10-25", true}},
		result: []string{"tip_amount:num:1-80"}},
	{name: "find_nearby_restaurants", desc: "Find restaurants near a location",
		params: []param{{"location", "string", "The city or address", "city", true}, {"cuisine", "string", "Preferred cuisine", "enum:Italian|Mexican|Japanese|Indian|Thai|vegetarian", false}, {"max_distance_km", "number", "Maximum distance in kilometers", "int:1-20", false}},
		result: []string{"restaurants:items:name=title+rating=num:3-5+distance_km=num:0-9"}},
	{name: "send_email", desc: "Send an email on the user's behalf",
		params: []param{{"to", "string", "Recipient's email address", "email", true}, {"subject", "string", "Subject line", "title", true}, {"body", "string", "Plain-text body of the email", "text", true}},
		result: []string{"message_id:id:MSG"}},
	{name: "create_todo", desc: "Add a task to the user's to-do list",
		params: []param{{"title", "string", "Short description of the task", "title", true}, {"due_date", "string", "The due date in YYYY-MM-DD format", "date", false}, {"priority", "string", "The priority of the task", "enum:low|medium|high", false}},
		result: []string{"todo_id:int:100-9999"}},
	{name: "get_news", desc: "Get the latest news articles",
		params: []param{{"category", "string", "The category of news articles", "enum:sports|technology|business|science|health", true}, {"country", "string", "The country code for the news source", "country", false}},
		result: []string{"articles:items:title=title+url=url"}},
	{name: "calculate_distance", desc: "Calculate the distance between two locations",
		params: []param{{"origin", "string", "The starting location", "city", true}, {"destination", "string", "The destination", "city", true}, {"mode", "string", "Mode of transport", "enum:driving|walking|transit", false}},
		result: []string{"distance_km:num:5-9000", "duration:enum:2 hours|45 minutes|1 day 3 hours|6 hours"}},
	{name: "check_flight_status", desc: "Check the status of a flight",
		params: []param{{"flight_number", "string", "The flight number, e.g. BA283", "id:FL", true}, {"date", "string", "The date of the flight", "date", true}},
		result: []string{"flight_status:enum:on time|delayed|boarding|landed", "gate:id:G", "departure:datetime"}},
	{name: "book_table", desc: "Book a table at a restaurant",
		params: []param{{"restaurant", "string", "Restaurant name", "title", true}, {"party_size", "integer", "Number of people", "int:1-10", true}, {"time", "string", "The time of the reservation (HH:MM)", "time", true}},
		result: []string{"confirmation_code:id:BK"}},
	{name: "analyze_sentiment", desc: "Analyze the sentiment of a text",
		params: []param{{"text", "string", "The text to analyze", "text", true}},
		result: []string{"sentiment:enum:positive|negative|neutral", "confidence:num:0-1"}},
	{name: "search_books", desc: "Search for books by title or author",
		params: []param{{"query", "string", "The title or keywords", "query", true}, {"author", "string", "Author name, to narrow the search", "person", false}},
		result: []string{"books:items:title=title+author=person+year=int:1950-2024"}},
	{name: "get_weather_forecast", desc: "Get the weather forecast for a city",
		params: []param{{"city", "string", "The city name", "city", true}, {"days", "integer", "Number of days to forecast", "int:1-7", false}, {"unit", "string", "The temperature unit", "enum:celsius|fahrenheit", false}},
		result: []string{"forecast:items:date=date+high=int:5-35+low=int:0-20+condition=enum:sunny|cloudy|rain|snow"}},
	{name: "schedule_meeting", desc: "Schedule a meeting with participants",
		params: []param{{"title", "string", "The title of the meeting", "title", true}, {"participants", "array", "Email addresses of the participants", "list:email", true}, {"start_time", "string", "Start time in ISO 8601 format", "datetime", true}, {"duration_minutes", "integer", "Length of the meeting in minutes", "int:15-120", false}},
		result: []string{"meeting_id:id:MTG", "calendar_link:url"}},
	{name: "convert_units", desc: "Convert a value from one unit to another",
		params: []param{{"value", "number", "The value to convert", "num:1-1000", true}, {"from_unit", "string", "The unit to convert from", "enum:km|miles|kg|lb|celsius|fahrenheit", true}, {"to_unit", "string", "The unit to convert to", "enum:km|miles|kg|lb|celsius|fahrenheit", true}},
		result: []string{"converted_value:num:1-2000"}},
	{name: "get_random_quote", desc: "Get a random inspirational quote",
		params: []param{{"category", "string", "The category of the quote", "enum:motivation|success|life|work", false}},
		result: []string{"quote:text", "author:person"}},
}

// The coding agent's tools.
var (
	toolSearch = &toolDef{name: "search_code", desc: "Search the repository for a string or regular expression. Returns matching lines with file paths and line numbers.",
		params: []param{{"pattern", "string", "The string or regular expression to search for.", "query", true}, {"path", "string", "Directory to search in, relative to the repository root. Defaults to the root.", "query", false}}}
	toolOpen = &toolDef{name: "open_file", desc: "Show up to 100 lines of a file, with line numbers, starting at the given line.",
		params: []param{{"path", "string", "Path of the file, relative to the repository root.", "query", true}, {"line", "integer", "First line to show (1-based).", "int:1-400", false}}}
	toolEdit = &toolDef{name: "replace_lines", desc: "Replace a range of lines in a file with new text. The new text may have a different number of lines.",
		params: []param{{"path", "string", "Path of the file.", "query", true}, {"start_line", "integer", "First line to replace (1-based, inclusive).", "int:1-400", true}, {"end_line", "integer", "Last line to replace (inclusive).", "int:1-400", true}, {"new_text", "string", "The replacement text.", "text", true}}}
	toolShell = &toolDef{name: "run_command", desc: "Run a shell command in the repository root and return its combined output. Commands time out after 120 seconds.",
		params: []param{{"command", "string", "The command line to run.", "text", true}}}
	toolSubmit = &toolDef{name: "submit", desc: "Finish the task. Call this once the change is complete and the tests pass.",
		params: []param{}}
	agentTools = []*toolDef{toolSearch, toolOpen, toolEdit, toolShell, toolSubmit}
)
