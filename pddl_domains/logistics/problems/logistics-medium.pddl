;; two cities, one airplane: a package goes from a depot in city1 to a depot in city2
(define (problem logistics-medium)
  (:domain logistics)
  (:objects
    city1 city2 - city
    depot1 depot2 - location
    apt1 apt2 - airport
    truck1 truck2 - truck
    plane1 - airplane
    pkg1 pkg2 - package)
  (:init
    (in-city depot1 city1) (in-city apt1 city1)
    (in-city depot2 city2) (in-city apt2 city2)
    (at truck1 depot1) (at truck2 apt2) (at plane1 apt1)
    (at pkg1 depot1) (at pkg2 apt1))
  (:goal (and (at pkg1 depot2) (at pkg2 apt2))))
