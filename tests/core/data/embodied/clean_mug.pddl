(define (problem clean_mug)
 (:domain kitchen)
 (:objects
    agent1 - agent
    SinkBasinType MicrowaveType CounterTopType - rtype
    MugType - otype
    Mug1 - object
    Sink1 Counter1 - receptacle
    loc_counter loc_sink loc_start - location)
 (:init
    (atLocation agent1 loc_start)
    (receptacleType Sink1 SinkBasinType) (receptacleType Counter1 CounterTopType)
    (receptacleAtLocation Sink1 loc_sink) (receptacleAtLocation Counter1 loc_counter)
    (objectType Mug1 MugType) (inReceptacle Mug1 Counter1) (objectAtLocation Mug1 loc_counter)
    (= (total-cost) 0))
 (:goal (exists (?o - object) (and (objectType ?o MugType) (isClean ?o))))
 (:metric minimize (total-cost)))
