"""Curated vocabularies: part-type keywords, appliance words, symptoms and their phrasings.

Everything here is the project's own wording. The importer uses it to normalise the raw
sources; the symptom vocabulary is written to ``data/catalog/symptoms.json`` and read
back from the database at run time.
"""

from __future__ import annotations

from typing import Final

# Words in "appliance types" fields and names that map onto the catalog's two appliances.
APPLIANCE_WORDS: Final[tuple[tuple[str, str], ...]] = (
    ("dishwasher", "dishwasher"),
    ("refrigerator", "refrigerator"),
    ("fridge", "refrigerator"),
    ("freezer", "refrigerator"),
    ("ice maker", "refrigerator"),
)

# Part type → keywords (lower case, singular). A name gets the type of the longest keyword
# it contains; ties go to the alphabetically first keyword (deterministic).
_PART_TYPES: Final[dict[str, tuple[str, ...]]] = {
    # dishwasher
    "Drain Pump": ("drain pump", "drain pump and motor", "drain motor"),
    "Circulation Pump": ("circulation pump", "wash pump", "circulation motor", "wash motor",
                         "pump and motor", "pump motor"),
    "Pump": ("pump", "impeller", "impeller assembly"),
    "Dishrack Wheel": ("dishrack wheel", "rack wheel", "dishrack roller", "rack roller",
                       "wheel", "roller"),
    "Dishrack": ("dishrack", "dish rack", "upper rack", "lower rack", "rack assembly", "rack",
                 "basket group", "upper basket", "lower basket"),
    "Rack Adjuster": ("rack adjuster", "adjuster kit", "adjuster", "positioner"),
    "Rack Track Stop": ("track stop", "rack stop", "stop clip"),
    "Rack Slide Track": ("slide track", "rack track", "slide rail", "rack rail", "rail"),
    "Silverware Basket": ("silverware basket", "cutlery basket", "utensil basket",
                          "silverware", "cutlery"),
    "Spray Arm": ("spray arm", "wash arm", "spray arm assembly", "upper wash arm",
                  "lower wash arm", "spray nozzle"),
    "Spray Arm Manifold": ("manifold", "water delivery tube", "feed tube", "conduit"),
    "Wash Arm Bearing": ("wash arm bearing", "bearing ring", "spray arm seal"),
    "Door Gasket": ("door gasket", "door seal", "gasket", "seal", "door strip"),
    "Tub Gasket": ("tub gasket", "tub seal"),
    "Door Latch": ("door latch", "latch assembly", "latch", "door lock", "strike"),
    "Door Switch": ("door switch", "latch switch", "interlock switch"),
    "Door Hinge": ("door hinge", "hinge", "hinge pin", "hinge bracket", "hinge assembly"),
    "Door Spring": ("door spring", "spring"),
    "Door Balance Link": ("balance link", "door cable", "door link", "cable pulley"),
    "Door Handle": ("door handle", "handle", "pull"),
    "Control Board": ("control board", "electronic control", "main control", "pc board",
                      "circuit board", "control unit", "control module", "main board",
                      "ui board", "power board", "board", "module programme", "cntrl elec",
                      "pcb", "pcb assembly", "electronic control board"),
    "Control Panel": ("control panel", "console", "control housing", "user interface"),
    "Touchpad": ("touchpad", "touch pad", "keypad", "membrane", "touch panel"),
    "Detergent Dispenser": ("detergent dispenser", "dispenser assembly", "soap dispenser",
                            "rinse aid dispenser", "detergent cup"),
    "Rinse Aid Cap": ("rinse aid cap", "dispenser cap", "rinse aid", "rinse cap"),
    "Water Inlet Valve": ("water inlet valve", "inlet valve", "water valve", "fill valve",
                          "solenoid valve", "valve assembly water"),
    "Heating Element": ("heating element", "heater element", "element"),
    "High Limit Thermostat": ("high limit thermostat", "hi limit thermostat",
                              "limit thermostat", "cycling thermostat"),
    "Thermal Fuse": ("thermal fuse", "fuse", "thermal cutoff"),
    "Float": ("float", "float assembly"),
    "Float Switch": ("float switch", "overfill switch", "flood switch"),
    "Drain Hose": ("drain hose", "drain tube", "drain line"),
    "Inlet Hose": ("inlet hose", "fill hose", "supply hose", "supply line"),
    "Hose": ("hose",),
    "Hose Clamp": ("hose clamp", "clamp"),
    "Filter": ("filter", "filter assembly", "fine filter", "coarse filter", "screen"),
    "Chopper": ("chopper", "chopper assembly", "chopper blade"),
    "Check Valve": ("check valve", "flapper", "check ball", "drain valve"),
    "Sump": ("sump", "sump assembly", "pump housing"),
    "Motor": ("motor", "drive motor", "motor kit"),
    "Timer": ("timer", "timer knob"),
    "Selector Switch": ("selector switch", "rotary switch", "push button switch",
                        "button switch"),
    "Turbidity Sensor": ("turbidity sensor", "optical sensor", "pressure sensor"),
    "Wire Harness": ("wire harness", "wiring harness", "harness", "harns", "cable harness",
                     "wire", "wiring"),
    "Power Cord": ("power cord", "cord", "power supply cord", "terminal block"),
    "Mounting Bracket": ("mounting bracket", "bracket", "support bracket"),
    "Kick Plate": ("kickplate", "kick plate", "toe kick", "toe panel", "access panel",
                   "kick panel"),
    "Vent": ("vent", "vent assembly", "air vent"),
    "Tub": ("tub", "tub assembly"),
    "Door Panel": ("door panel", "outer door", "inner door", "door assembly", "door outer",
                   "door inner", "door"),
    "Tine": ("tine", "tine row", "tine pivot", "fold down tine", "cup shelf"),
    "Wax Motor": ("wax motor", "bi metal", "actuator wax"),
    # refrigerator
    "Ice Maker Assembly": ("ice maker", "icemaker", "ice maker assembly",
                           "replacement ice maker", "ice maker kit", "ice module"),
    "Ice Maker Fill Tube": ("fill tube", "ice maker fill tube"),
    "Ice Bucket": ("ice bucket", "ice container", "ice bin", "ice storage", "ice tray",
                   "container"),
    "Auger Motor": ("auger motor", "dispenser motor", "ice dispenser motor"),
    "Auger": ("auger", "crusher", "ice crusher"),
    "Water Filter": ("water filter", "ice and water filter", "filter cartridge",
                     "water filtration"),
    "Air Filter": ("air filter", "produce preserver", "odor filter", "freshflow"),
    "Door Shelf Bin": ("door shelf bin", "door bin", "shelf bin", "door shelf", "door rack",
                       "dairy door", "dairy bin", "bin", "gallon door"),
    "Shelf": ("shelf", "glass shelf", "wire shelf", "shelf assembly", "shelf trim",
              "shelf frame", "retainer bar"),
    "Crisper Drawer": ("crisper drawer", "crisper pan", "vegetable pan", "vegetable drawer",
                       "meat pan", "deli drawer", "drawer", "pan", "snack pan"),
    "Crisper Drawer Cover": ("crisper drawer cover", "crisper cover", "pan cover",
                             "drawer cover", "crisper pan cover"),
    "Evaporator Fan Motor": ("evaporator fan motor", "evap fan motor", "evaporator motor",
                             "evaporator fan"),
    "Condenser Fan Motor": ("condenser fan motor", "condenser motor", "condenser fan"),
    "Fan Motor": ("fan motor", "motor fan", "fan motor kit"),
    "Fan Blade": ("fan blade", "blade", "fan", "fan assembly"),
    "Defrost Heater": ("defrost heater", "heater defrost", "heater", "radiant heater",
                       "heater assembly"),
    "Defrost Thermostat": ("defrost thermostat", "defrost termination thermostat",
                           "bimetal thermostat", "defrost sensor"),
    "Defrost Timer": ("defrost timer", "defrost control", "adaptive defrost"),
    "Temperature Sensor": ("temperature sensor", "thermistor", "sensor", "temp sensor"),
    "Temperature Control": ("temperature control", "cold control", "control thermostat",
                            "thermostat", "temperature control thermostat"),
    "Start Relay": ("start relay", "relay", "start device", "overload", "relay combo",
                    "overload and start relay", "ptc", "starter", "start dev"),
    "Run Capacitor": ("run capacitor", "capacitor", "start capacitor"),
    "Compressor": ("compressor", "compressor kit"),
    "Air Damper": ("air damper", "damper", "damper control", "air inlet damper", "baffle",
                   "air diffuser", "damper assembly"),
    "Light Bulb": ("light bulb", "bulb", "lamp", "led light", "light", "led", "led board",
                   "light assembly"),
    "Light Socket": ("light socket", "lamp socket", "socket"),
    "Light Switch": ("light switch", "door light switch", "lamp switch"),
    "Door Closure Cam": ("closing cam", "door closure", "cam kit", "cam", "door closer",
                         "closure cam"),
    "Dispenser Actuator": ("dispenser actuator", "actuator", "dispenser lever",
                           "dispenser paddle", "paddle", "lever", "dispenser arm"),
    "Dispenser Door": ("dispenser door", "ice door", "flap", "dispenser flap", "chute door",
                       "ice chute"),
    "Dispenser": ("dispenser", "dispenser assembly", "water dispenser", "dispenser housing",
                  "dispenser grille", "dispenser cover"),
    "Water Tank": ("water tank", "reservoir", "water reservoir", "tank", "tank assembly"),
    "Water Tubing": ("water tube", "water line", "tubing", "water tubing", "tube",
                     "tube assembly", "pipe", "water pipe"),
    "Drain Pan": ("drain pan", "drip tray", "drip pan", "defrost pan", "tray",
                  "condensate pan"),
    "Leveling Leg": ("leveling leg", "leveling foot", "leg", "foot", "leveler",
                     "leveling screw"),
    "Grille": ("grille", "toe grille", "grill", "base grille"),
    "Micro Switch": ("micro switch", "microswitch", "switch"),
    "Trim": ("trim", "trim piece", "moulding", "molding", "end cap"),
    "Liner": ("liner", "liner assembly"),
    "Insulation": ("insulation", "insulating part", "foam"),
    "Evaporator": ("evaporator", "evaporator coil", "evaporator assembly"),
    "Condenser": ("condenser", "condenser coil"),
    "Drier": ("drier", "filter drier", "dryer filter"),
    "Screw": ("screw", "bolt", "nut", "fastener", "rivet", "washer screw", "screw kit",
              "mounting screw"),
    "Clip": ("clip", "retainer", "retainer clip", "fixing kit", "mounting kit"),
    "Knob": ("knob", "dial"),
    "Button": ("button", "push button"),
    "Cover": ("cover", "cap", "end cover", "cover assembly", "lid", "plug"),
    "Panel": ("panel", "plate", "side panel", "front panel", "glass plate"),
    "Housing": ("housing", "case", "case assembly", "box", "box control"),
    "Duct": ("duct", "air duct", "duct air", "air tower", "tower"),
    "Nameplate": ("nameplate", "badge", "logo", "emblem"),
    "Manual": ("manual", "instruction manual", "owners manual", "installation instructions",
               "literature", "service manual"),
    "Grommet": ("grommet", "bushing", "bush", "o ring", "washer seal", "ferrule", "lock ring"),
    "Diverter": ("diverter", "diverter disc", "deflector", "baffle plate"),
    "Insert": ("insert", "key set"),
    "Fan Shroud": ("shroud", "fan shroud", "shroud assembly"),
    "Bearing": ("bearing", "hinge bearing"),
    "Guide": ("guide", "slide", "glide", "support", "stop"),
    "Holder": ("holder", "mount", "hanger", "bracket holder"),
    "Connector": ("connector", "connector assembly", "terminal", "splice"),
    "Cleaner": ("cleaner", "cleaning tablet", "affresh", "descaler"),
}


def _singular(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def singular_phrase(phrase: str) -> str:
    return " ".join(_singular(w) for w in phrase.split())


PART_TYPE_KEYWORDS: Final[tuple[tuple[str, str], ...]] = tuple(
    sorted(
        {(singular_phrase(k), t) for t, keys in _PART_TYPES.items() for k in keys},
        key=lambda kt: (-len(kt[0]), kt[0], kt[1]),
    )
)
PART_TYPES: Final[tuple[str, ...]] = tuple(sorted(_PART_TYPES))

# Repair-guide part-type phrases that the keyword rule would not map on its own.
GUIDE_TYPE_OVERRIDES: Final[dict[str, tuple[str, ...]]] = {
    "pump": ("Drain Pump", "Circulation Pump", "Pump"),
    "pump impellers": ("Circulation Pump", "Drain Pump", "Pump"),
    "piston & nut assembly": ("Drain Pump", "Check Valve"),
    "belt": ("Motor",),
    "docking station": ("Spray Arm Manifold",),
    "wash spinner": ("Spray Arm",),
    "dispensers & grommets": ("Detergent Dispenser", "Grommet"),
    "detergent & rinse aid dispensers": ("Detergent Dispenser", "Rinse Aid Cap"),
    "bi-metal release": ("Wax Motor",),
    "door spring & hinge pin": ("Door Spring", "Door Hinge"),
    "timer or electronic control": ("Timer", "Control Board"),
    "motor start relay": ("Start Relay", "Motor"),
    "ice & water filter": ("Water Filter",),
    "water fill tubes": ("Ice Maker Fill Tube", "Water Tubing"),
    "sealed system": ("Compressor", "Evaporator", "Condenser", "Drier"),
    "main control board": ("Control Board",),
    "dispenser control board": ("Control Board",),
    "electronic control board": ("Control Board",),
    "air damper or freezer control": ("Air Damper", "Temperature Control"),
    "light bulb & ice dispenser": ("Light Bulb", "Dispenser"),
    "dispenser door assembly or flapper & ice door kit": ("Dispenser Door",),
    "overload or relay-start capacitor": ("Start Relay", "Run Capacitor"),
    "water dispenser actuator": ("Dispenser Actuator",),
    "filters": ("Filter",),
    "spray arms": ("Spray Arm",),
}

# Symptom vocabulary. label: canonical label; variants: raw source labels (any case,
# either apostrophe) that mean the same; synonyms: shopper phrasings (lower case).
SymptomSpec = tuple[str, tuple[str, ...], tuple[str, ...]]

DISHWASHER_SYMPTOMS: Final[tuple[SymptomSpec, ...]] = (
    ("Not draining", ("Not draining", "Will not drain", "Won't drain"), (
        "not draining", "won't drain", "doesn't drain", "does not drain", "will not drain",
        "water in the bottom", "water left in the bottom", "standing water", "water sitting",
        "water pooling in the tub", "drain problem", "clogged drain", "water won't go down",
        "full of water", "dirty water left", "not pumping out", "drains slowly",
        "slow to drain")),
    ("Leaking", ("Leaking", "Leaks water"), (
        "leaking", "leaks", "leak", "leaky", "water on the floor", "puddle", "dripping",
        "water under the dishwasher", "water coming out", "seeping water", "flooding")),
    ("Noisy", ("Noisy",), (
        "noisy", "noise", "loud", "grinding", "rattling", "rattle", "humming", "buzzing",
        "squeaking", "squealing", "banging", "strange sound", "weird noise", "whining")),
    ("Will not start", ("Will not start", "Won't start", "Will Not Start"), (
        "won't start", "will not start", "doesn't start", "does not start", "not starting",
        "won't turn on", "doesn't turn on", "won't run", "not running", "dead", "no power",
        "nothing happens", "won't power on", "not turning on")),
    ("Door latch failure", ("Door latch failure",), (
        "door latch", "latch broken", "latch failure", "door won't latch", "won't latch",
        "latch doesn't catch", "door won't lock", "latch stuck", "broken latch")),
    ("Not cleaning dishes properly", ("Not cleaning dishes properly",), (
        "not cleaning", "dishes still dirty", "dirty dishes", "doesn't clean",
        "does not clean", "food left on dishes", "residue on dishes", "spots on dishes",
        "cloudy glasses", "poor cleaning", "not washing", "film on dishes",
        "dishes come out dirty", "won't clean")),
    ("Will not fill with water", ("Will not fill with water",), (
        "won't fill", "will not fill", "not filling", "no water", "doesn't fill",
        "does not fill", "no water coming in", "not getting water", "water not coming in",
        "fills slowly", "low water")),
    ("Will not dispense detergent", ("Will not dispense detergent",), (
        "detergent not dispensing", "won't dispense detergent", "soap not dispensing",
        "detergent door won't open", "soap door won't open", "detergent left in dispenser",
        "soap still in the cup", "tablet not dissolving", "dispenser won't open",
        "detergent cup won't open", "rinse aid not dispensing")),
    ("Not drying dishes properly", ("Not drying dishes properly",), (
        "not drying", "dishes still wet", "wet dishes", "won't dry", "doesn't dry",
        "does not dry", "dishes wet", "poor drying", "water on dishes after cycle")),
    ("Door won't close", ("Door won't close", "Lid or door won't close",
                          "Door won't open or close"), (
        "door won't close", "door doesn't close", "door will not close",
        "can't close the door", "door won't shut", "door won't stay closed", "door drops",
        "door falls open", "door slams", "door hard to close", "door won't open")),
    ("Door pops open", ("Door Pops Open",), (
        "door pops open", "door opens during cycle", "door opens by itself",
        "door springs open", "door comes open")),
    ("Not heating", ("Not Heating", "Element will not heat"), (
        "not heating", "no heat", "water not hot", "cold water", "element not heating",
        "heating element not working", "won't heat", "doesn't heat")),
    ("Clicking sound", ("Clicking sound",), (
        "clicking", "clicks", "clicking noise", "ticking", "clicking sound")),
    ("Touchpad does not respond", ("Touchpad does not respond",), (
        "touchpad", "buttons don't work", "buttons not working", "keypad not working",
        "controls not responding", "control panel not working", "buttons unresponsive",
        "display blank", "control panel dead", "buttons won't respond")),
    ("Burning smell", ("Burning smell",), (
        "burning smell", "smells like burning", "smell of burning", "burnt smell",
        "electrical smell", "smoke", "smoking")),
)

REFRIGERATOR_SYMPTOMS: Final[tuple[SymptomSpec, ...]] = (
    ("Ice maker not making ice", ("Ice maker not making ice",), (
        "no ice", "not making ice", "ice maker stopped working", "not producing ice",
        "ice maker not working", "ice maker broken", "ice maker doesn't work",
        "ice maker won't make ice", "stopped making ice", "no ice cubes",
        "ice maker is dead", "icemaker not working", "makes no ice", "not making any ice",
        "won't make ice")),
    ("Ice maker won't dispense ice", ("Ice maker won't dispense ice",), (
        "won't dispense ice", "ice not dispensing", "ice dispenser not working",
        "ice won't come out", "no ice from the dispenser", "ice stuck",
        "ice dispenser jammed", "ice dispenser broken", "dispenser won't give ice",
        "ice clumped", "ice chute blocked")),
    ("Ice maker dispenses too little ice", ("Ice maker dispenses too little ice",), (
        "too little ice", "not enough ice", "small ice cubes", "ice cubes too small",
        "slow ice production", "makes little ice", "hollow ice cubes")),
    ("Ice maker dispenses too much ice", ("Ice maker dispenses too much ice",), (
        "too much ice", "ice overflowing", "ice maker won't stop", "overflowing ice bin",
        "keeps making ice", "ice everywhere")),
    ("Not dispensing water", ("Not dispensing water",), (
        "not dispensing water", "no water from the dispenser", "water dispenser not working",
        "water won't come out", "no water", "water dispenser broken", "slow water dispenser",
        "dispenser has no water", "water dispenser stopped working", "won't dispense water")),
    ("Fridge too warm", ("Fridge too warm", "Too warm"), (
        "fridge too warm", "fridge is warm", "refrigerator too warm", "not cooling",
        "not cold", "fridge not cold", "fridge not cooling", "warm fridge",
        "food spoiling", "milk going bad", "refrigerator not cold",
        "refrigerator not cooling", "fridge warm", "not cold enough")),
    ("Fridge too cold", ("Fridge too cold",), (
        "fridge too cold", "freezing food", "food freezing in the fridge",
        "refrigerator too cold", "lettuce frozen", "everything freezes", "too cold",
        "frozen milk")),
    ("Freezer section too warm", ("Freezer section too warm",), (
        "freezer too warm", "freezer not cold", "freezer not freezing", "freezer warm",
        "ice cream soft", "food thawing", "freezer not cold enough", "freezer stopped working",
        "freezer not cooling", "freezer thawing")),
    ("Freezer too cold", ("Freezer too cold",), (
        "freezer too cold", "freezer too cold", "freezer freezing too much",
        "freezer is too cold")),
    ("Fridge and freezer are too warm", ("Fridge and Freezer are too warm",), (
        "fridge and freezer too warm", "both too warm", "fridge and freezer not cold",
        "whole fridge warm", "nothing is cold", "fridge and freezer warm",
        "freezer and fridge not cooling", "both compartments warm")),
    ("Freezer not defrosting", ("Freezer not defrosting",), (
        "not defrosting", "freezer not defrosting", "defrost problem", "ice on the coils",
        "frozen coils", "iced up evaporator", "won't defrost")),
    ("Frost buildup", ("Frost buildup",), (
        "frost buildup", "frost build up", "frost", "frosty", "ice buildup",
        "ice build up", "frosted over", "ice on the back wall", "frost in the freezer")),
    ("Fridge runs too long", ("Fridge runs too long", "Doesn't stop running"), (
        "runs too long", "runs constantly", "never stops running", "always running",
        "runs all the time", "won't stop running", "doesn't stop running",
        "compressor runs nonstop", "runs nonstop")),
    ("Leaking", ("Leaking", "Leaks water"), (
        "leaking", "leaks", "leak", "water on the floor", "puddle", "dripping",
        "water under the fridge", "water leaking", "water in the bottom",
        "water pooling", "leaky")),
    ("Noisy", ("Noisy",), (
        "noisy", "noise", "loud", "buzzing", "humming", "rattling", "rattle", "grinding",
        "squealing", "squeaking", "strange sound", "weird noise", "fan noise",
        "loud fan")),
    ("Clicking sound", ("Clicking sound",), (
        "clicking", "clicks", "clicking noise", "ticking", "clicking sound", "click")),
    ("Will not start", ("Will not start", "Won't start", "Will Not Start"), (
        "won't start", "will not start", "doesn't start", "does not start", "not starting",
        "won't turn on", "no power", "dead", "not running", "compressor won't start",
        "nothing works", "completely dead", "won't run", "doesn't turn on")),
    ("Door won't open or close", ("Door won't open or close", "Door won't close",
                                  "Lid or door won't close"), (
        "door won't close", "door won't open", "door doesn't close", "door doesn't seal",
        "door won't seal", "door hard to open", "door stays open", "door won't shut",
        "door sagging", "door won't stay closed", "broken door", "door not closing",
        "door bin broken", "shelf broken", "bin cracked", "broken shelf", "broken bin")),
    ("Door sweating", ("Door Sweating", "Door sweating"), (
        "door sweating", "condensation", "moisture on the door", "sweating",
        "water on the door", "wet door", "condensation on the door")),
    ("Light not working", ("Light not working",), (
        "light not working", "light out", "light doesn't work", "no light",
        "light won't turn on", "bulb burned out", "light stays on", "dark inside",
        "light is out", "light burned out")),
    ("Touchpad does not respond", ("Touchpad does not respond",), (
        "touchpad", "buttons don't work", "buttons not working", "keypad not working",
        "controls not responding", "control panel not working", "display not working",
        "display blank", "buttons unresponsive", "control panel dead")),
)

SYMPTOM_SPECS: Final[dict[str, tuple[SymptomSpec, ...]]] = {
    "dishwasher": DISHWASHER_SYMPTOMS,
    "refrigerator": REFRIGERATOR_SYMPTOMS,
}
